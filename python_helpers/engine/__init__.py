"""Where SQL runs: the embedded Spark session or a Thrift server, and the
commands that read tables (show, export, freshness).
"""
