"""Storage: SQLAlchemy models and alembic migrations (SQLite by default, PostgreSQL by URL)."""
