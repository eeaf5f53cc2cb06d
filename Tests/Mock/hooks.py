# Schemathesis hooks for the mock's runs (Scripts/mock-schemathesis.sh sets SCHEMATHESIS_HOOKS):
# request bodies of the sequential JSON types, which Schemathesis cannot write by itself
# ("No supported serializers for media types: application/jsonl"). A generated array is a
# sequence of items, anything else one item.
import json

import schemathesis


def _items(value):
    return value if isinstance(value, list) else [value]


@schemathesis.serializer("application/jsonl", "application/x-ndjson")
def json_lines(ctx, value):
    return {"data": "".join(json.dumps(item) + "\n" for item in _items(value)).encode()}


@schemathesis.serializer("application/json-seq")
def json_sequence(ctx, value):
    return {"data": "".join("\x1e" + json.dumps(item) + "\n" for item in _items(value)).encode()}
