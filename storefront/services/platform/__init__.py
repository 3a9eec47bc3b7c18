"""Platform: what every domain leans on and that knows nothing of commerce.

Money in integer cents (`money.py`), the typed errors services raise (`errors.py`), background
threads that repeat a piece of work (`background.py`), one process at a time for a job
(`job_leases.py`), request counters kept in the database (`rate_limit.py`), webhook deliveries
applied once (`webhook_deliveries.py`), CSV cells safe from formula injection (`csv_cells.py`),
what each process counts for /metrics (`metrics.py`) and log records as JSON lines (`json_logs.py`).

May use: no other domain (only storefront.models and storefront.config).
"""
