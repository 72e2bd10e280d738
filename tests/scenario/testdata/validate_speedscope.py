#!/usr/bin/python3
"""Validates a speedscope JSON document against speedscope's published schema.

Usage: validate_speedscope.py SCHEMA DOCUMENT
Exit 0 and "valid" when the document conforms; 1 and the first error otherwise; 2 when
jsonschema cannot be imported (run it with /usr/bin/python3, which has python3-jsonschema).
"""
import json
import sys

try:
    import jsonschema
except ImportError as e:
    print(f"no jsonschema module: {e}", file=sys.stderr)
    sys.exit(2)


def main():
    with open(sys.argv[1], encoding="utf-8") as f:
        schema = json.load(f)
    try:
        # strict: bytes that are not UTF-8 fail here, as they would in the browser.
        with open(sys.argv[2], encoding="utf-8", errors="strict") as f:
            doc = json.load(f)
        jsonschema.validate(doc, schema)
    except (ValueError, jsonschema.ValidationError) as e:
        print(f"invalid: {str(e)[:2000]}", file=sys.stderr)
        return 1
    print("valid")
    return 0


if __name__ == "__main__":
    sys.exit(main())
