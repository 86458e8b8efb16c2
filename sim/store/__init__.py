"""The run folder, written and read: layout (atomic writes, manifest), schema, Parquet
parts, tables, verification, the lock and game seeds."""
