// Package boardsvg draws a board as a standalone SVG document, the answer
// of Solution.svg.
package boardsvg

import (
	"strconv"
	"strings"

	"github.com/nqueens/nqueens/solver"
)

// The sizes Render is meant for, in pixels (what svg(size:) accepts):
// below MinSize a queen is a few pixels, above MaxSize the image says no
// more and costs the client more to draw.
const (
	MinSize = 16
	MaxSize = 4096
)

// queenSymbol is a queen drawn in a 1×1 square: a crown of five points on
// a base, dark with a light outline so it reads on both square colours.
const queenSymbol = `<symbol id="q" viewBox="0 0 100 100">` +
	`<g fill="#1b1b1b" stroke="#fafafa" stroke-width="3" stroke-linejoin="round">` +
	`<path d="M22 78 L14 38 L34 58 L50 28 L66 58 L86 38 L78 78 Z"/>` +
	`<rect x="20" y="80" width="60" height="9" rx="2"/>` +
	`<circle cx="14" cy="33" r="6"/><circle cx="34" cy="53" r="5"/><circle cx="50" cy="22" r="6"/>` +
	`<circle cx="66" cy="53" r="5"/><circle cx="86" cy="33" r="6"/>` +
	`</g></symbol>`

// Render draws solution p as a standalone SVG document of size×size
// pixels: one unit per square (viewBox 0 0 N N), light squares as the
// background, the dark ones (row+column odd, so the top-left square is
// light as on a chessboard) as one path, a queen on each occupied square,
// row 0 on top as in Rows. The output depends only on p and size.
func Render(p solver.Placement, size int) string {
	n := len(p)
	ns := strconv.Itoa(n)
	var b strings.Builder
	b.Grow(700 + 24*n*n/2 + 40*n)
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="`)
	b.WriteString(strconv.Itoa(size))
	b.WriteString(`" height="`)
	b.WriteString(strconv.Itoa(size))
	b.WriteString(`" viewBox="0 0 ` + ns + ` ` + ns + `" shape-rendering="crispEdges" role="img">`)
	b.WriteString(`<title>` + ns + ` queens: ` + p.String() + `</title>`)
	b.WriteString(`<defs>` + queenSymbol + `</defs>`)
	b.WriteString(`<rect width="` + ns + `" height="` + ns + `" fill="#f0d9b5"/>`)
	b.WriteString(`<path fill="#b58863" d="`)
	for r := range n {
		for c := range n {
			if (r+c)%2 == 1 {
				b.WriteString("M" + strconv.Itoa(c) + " " + strconv.Itoa(r) + "h1v1h-1z")
			}
		}
	}
	b.WriteString(`"/>`)
	for r, c := range p {
		x, y := strconv.Itoa(c), strconv.Itoa(r)
		b.WriteString(`<use href="#q" xlink:href="#q" x="` + x + `" y="` + y + `" width="1" height="1"/>`)
	}
	b.WriteString(`</svg>` + "\n")
	return b.String()
}
