package export

// The lines of each format, appended byte by byte to the output buffer:
// no allocation, no formatting package per solution. A placement's
// columns are 0..31, one or two digits.

// lineWriter returns the function that appends one solution's line,
// given its placement as one byte per row.
func lineWriter(f Format, n int) func(buf, key []byte) []byte {
	switch f {
	case NDJSON:
		prefix := appendInt([]byte(`{"n":`), n)
		prefix = append(prefix, `,"placement":[`...)
		return func(buf, key []byte) []byte {
			buf = append(buf, prefix...)
			buf = appendColumns(buf, key, ',')
			return append(buf, ']', '}', '\n')
		}
	case Placement:
		return func(buf, key []byte) []byte {
			return append(appendColumns(buf, key, ' '), '\n')
		}
	}
	return func(buf, key []byte) []byte {
		return append(appendColumns(buf, key, ','), '\n')
	}
}

// appendCSVHeader appends the CSV header: row0,row1,…,row{n-1}.
func appendCSVHeader(buf []byte, n int) []byte {
	for r := range n {
		if r > 0 {
			buf = append(buf, ',')
		}
		buf = appendInt(append(buf, "row"...), r)
	}
	return append(buf, '\n')
}

// appendColumns appends the columns of key separated by sep.
func appendColumns(buf, key []byte, sep byte) []byte {
	for i, c := range key {
		if i > 0 {
			buf = append(buf, sep)
		}
		if c < 10 {
			buf = append(buf, '0'+c)
		} else {
			buf = append(buf, '0'+c/10, '0'+c%10)
		}
	}
	return buf
}

// appendInt appends a small non-negative integer in decimal.
func appendInt(buf []byte, v int) []byte {
	if v >= 10 {
		buf = appendInt(buf, v/10)
	}
	return append(buf, '0'+byte(v%10))
}
