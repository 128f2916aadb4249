// Reads each Parquet file named on the command line with DuckDB and with
// hyparquet, and prints one JSON line per file:
//   {"file": …, "duckdb": {"columns": [[name, type], …], "rows": [[rank, row0, …], …], "rowGroups": k},
//    "hyparquet": {"columns": [name, …], "rows": [[rank, row0, …], …]}}
// The Go test (export/readers_test.go) compares the rows with the solver's
// enumeration. A reader's failure is printed and exits 1.
import { DuckDBInstance } from '@duckdb/node-api';
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';

const num = (v) => (typeof v === 'bigint' ? Number(v) : v);

const instance = await DuckDBInstance.create(':memory:');
const conn = await instance.connect();
for (const path of process.argv.slice(2)) {
  const quoted = `'${path.replaceAll("'", "''")}'`;
  const read = await conn.runAndReadAll(`SELECT * FROM read_parquet(${quoted}) ORDER BY rank`);
  const types = read.columnTypes().map((t) => t.toString());
  const groups = await conn.runAndReadAll(`SELECT count(DISTINCT row_group_id) FROM parquet_metadata(${quoted})`);
  const duckdb = {
    columns: read.columnNames().map((name, i) => [name, types[i]]),
    rows: read.getRows().map((row) => row.map(num)),
    rowGroups: num(groups.getRows()[0][0]),
  };

  const file = await asyncBufferFromFile(path);
  const metadata = await parquetMetadataAsync(file);
  const names = metadata.schema.slice(1).map((e) => e.name);
  const objects = await parquetReadObjects({ file, metadata });
  const hyparquet = {
    columns: names,
    rows: objects.map((o) => names.map((name) => num(o[name]))),
  };
  console.log(JSON.stringify({ file: path, duckdb, hyparquet }));
}
