"""Results of games at real tables and on the server, score sheets, and the world list."""
