// Reads a database file of the store with SQLite 3.31.1, the oldest SQLite
// the schema is written for (Ubuntu 20.04's): node read.js FILE < EXAMPLES.
// It prints the same JSON object as ../analyst.py. This build of SQLite
// lacks two optional parts that system builds have (the dbstat table and
// the JSON functions); a query that needs them reports the error.
'use strict';
const fs = require('fs');
const path = require('path');
const dist = path.join(__dirname, 'node_modules', 'sql.js', 'dist');

function cell(value) {
  if (value === null) return null;
  if (value instanceof Uint8Array) return "x'" + Buffer.from(value).toString('hex').toUpperCase() + "'";
  return String(value);
}

function run(db, query) {
  const rows = [];
  const stmt = db.prepare(query);
  try {
    while (stmt.step()) rows.push(stmt.get().map(cell));
  } finally {
    stmt.free();
  }
  return rows;
}

require(path.join(dist, 'sql-wasm.js'))({ wasmBinary: fs.readFileSync(path.join(dist, 'sql-wasm.wasm')) }).then((SQL) => {
  const queries = JSON.parse(fs.readFileSync(0, 'utf8'));
  const db = new SQL.Database(fs.readFileSync(process.argv[2]));
  const version = run(db, 'SELECT sqlite_version()')[0][0];
  const objects = run(db, "SELECT name FROM sqlite_master WHERE type IN ('table', 'view') AND name NOT LIKE 'sqlite_%' ORDER BY name").map((r) => r[0]);
  const integrity = run(db, 'PRAGMA integrity_check').map((r) => r[0]);
  const examples = queries.map((query) => {
    const start = process.hrtime.bigint();
    try {
      const rows = run(db, query);
      return { rows, seconds: Number(process.hrtime.bigint() - start) / 1e9 };
    } catch (err) {
      return { error: err.message };
    }
  });
  process.stdout.write(JSON.stringify({ version, objects, integrity_check: integrity, examples }));
}).catch((err) => {
  process.stderr.write(String(err && err.stack || err) + '\n');
  process.exit(1);
});
