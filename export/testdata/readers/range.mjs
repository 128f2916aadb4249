// Reads the columns rank and row0 of the Parquet file at a URL with
// hyparquet, as a page would, by range requests, and prints one JSON line:
//   {"size": bytes, "requests": [{"method", "range", "status", "length"}, …], "rows": [[rank, row0], …]}
// The Go test (export/readers_test.go) checks the rows and that the
// requests fetched only part of the file.
import { asyncBufferFromUrl, parquetMetadataAsync, parquetReadObjects } from 'hyparquet';

const url = process.argv[2];
const requests = [];
const counted = async (u, init = {}) => {
  const res = await fetch(u, init);
  requests.push({
    method: init.method ?? 'GET',
    range: new Headers(init.headers).get('Range') ?? '',
    status: res.status,
    length: Number(res.headers.get('Content-Length') ?? -1),
  });
  return res;
};
const file = await asyncBufferFromUrl({ url, fetch: counted });
// The footer first, 4 KiB of it (not hyparquet's default 512 KiB, which
// would take the whole of a small file at once).
const metadata = await parquetMetadataAsync(file, { initialFetchSize: 4096 });
const rows = await parquetReadObjects({ file, metadata, columns: ['rank', 'row0'] });
console.log(JSON.stringify({
  size: file.byteLength,
  requests,
  rows: rows.map((r) => [Number(r.rank), Number(r.row0)]),
}));
