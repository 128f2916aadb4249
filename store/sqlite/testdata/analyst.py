"""Reads a database file of the store as an analyst does, with Python's
sqlite3 module (the system's SQLite): python3 analyst.py FILE < EXAMPLES.

EXAMPLES is a JSON array of SQL queries. It prints one JSON object: the
SQLite version, the tables and views (what the shell's .tables lists),
the result of PRAGMA integrity_check, and for each query its rows (values
as analyst_test.go writes them: NULL as null, a blob as x'HEX', a number
in decimal, an integral real as an integer), its time or its error."""

import json
import pathlib
import sqlite3
import sys
import time


def cell(value):
    if value is None:
        return None
    if isinstance(value, bytes):
        return "x'" + value.hex().upper() + "'"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def main():
    uri = pathlib.Path(sys.argv[1]).resolve().as_uri() + "?mode=ro"
    queries = json.load(sys.stdin)
    con = sqlite3.connect(uri, uri=True)
    objects = [row[0] for row in con.execute(
        "SELECT name FROM sqlite_master WHERE type IN ('table', 'view')"
        " AND name NOT LIKE 'sqlite_%' ORDER BY name")]
    integrity = [row[0] for row in con.execute("PRAGMA integrity_check")]
    examples = []
    for query in queries:
        start = time.monotonic()
        try:
            rows = [[cell(v) for v in row] for row in con.execute(query)]
            examples.append({"rows": rows, "seconds": time.monotonic() - start})
        except sqlite3.Error as err:
            examples.append({"error": str(err)})
    json.dump({"version": sqlite3.sqlite_version, "objects": objects,
               "integrity_check": integrity, "examples": examples}, sys.stdout)


main()
