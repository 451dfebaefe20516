"""Landing: reading topic dumps and appending them to the raw Iceberg tables,
batch by batch.

One module a job, each depending only on those listed before it:
``landing`` (the dump files and their forms, no Spark), ``raw_tables``
(the tables, their columns and layout), ``manifest`` (what each landed file
was), ``file_plans`` (which files a batch reads, from which line),
``batch_sql`` (the statements of a batch), ``raw_store`` (a landing run:
the batches of every topic, their duplicates and their commit) and
``landing_memory`` (what the last landing saw: a run with nothing new
starts no Spark).
"""
