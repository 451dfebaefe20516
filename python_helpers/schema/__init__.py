"""Reading schemas: Kafka Connect schema blocks, their versions and evolution,
Spark types, MongoDB extended JSON, Debezium metadata topics.
"""
