package export

// Size is what an export of solutions lines writes: its lines (the CSV
// header included) and bytes. Every line of a format has the same length
// for a given N, because a solution is a permutation: its columns are 0 to
// N-1 once each, whatever their order, so the digits of a line add up to
// the same. That is what lets `nqueens export` say up front what it will
// write, from the count alone. A Parquet file's size is known only once
// it is compressed: Size says 0 lines, 0 bytes.
func Size(f Format, n int, solutions uint64) (lines, bytes uint64) {
	if f == Parquet {
		return 0, 0
	}
	key := make([]byte, n)
	for c := range key {
		key[c] = byte(c)
	}
	line := uint64(len(lineWriter(f, n)(nil, key)))
	lines, bytes = solutions, solutions*line
	if f == CSV {
		lines++
		bytes += uint64(len(appendCSVHeader(nil, n)))
	}
	return lines, bytes
}
