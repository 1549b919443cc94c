"""The pips server: tables, the websocket protocol, accounts, pages and the JSON API."""
