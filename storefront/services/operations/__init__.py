"""Operations: what the person running the shop needs to keep it safe and to see inside it.

Backups of the database, the uploads and the signing key in one checked archive, and restoring
one (`backups.py`, `restore.py`, `pg_tools.py` for PostgreSQL's own dump tools), scheduled
backups under a job lease (`backup_schedule.py`), the health checks a load balancer asks
(`health.py`) and the figures a Prometheus server scrapes (`metrics.py`).

May use: platform.
"""
