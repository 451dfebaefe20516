"""Landing: reading topic dumps and appending them to the raw Iceberg tables,
batch by batch.
"""
