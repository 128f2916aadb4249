package solver
import ("testing";"context";"time")
func timeN(t *testing.T, name string, n int, o func(Task) Task) {
 old := orient; orient = o; defer func(){orient = old}()
 st := time.Now()
 c, _ := Count(context.Background(), n, CountOptions{Workers: 1})
 t.Logf("%s N=%d %v %d", name, n, time.Since(st), c.Total)
}
func by(f func(Task) int) func(Task) Task {
 return func(tk Task) Task {
   var out Task; bs := 1<<30; bk := 0
   for _, s := range Symmetries { im := tk.image(s); sc := f(im)
     if sc < bs || sc == bs && im.key() < bk { out, bs, bk = im, sc, im.key() } }
   return out
 }
}
func TestZZ(t *testing.T){
 n := 16
 d := func(im Task) int { return min(im.Bottom, im.N-1-im.Bottom) }
 timeN(t, "jasmin-score", n, by(func(im Task) int { return d(im)*100000 - scoreOf(im) }))
 // timeN(t, "jasmin-key", n, by(func(im Task) int { return d(im) }))
 // timeN(t, "jasmin-lrsmall", n, by(func(im Task) int { return d(im)*1000 + max(im.Left, im.Right) }))
 // timeN(t, "jasmin-lrlarge", n, by(func(im Task) int { return d(im)*1000 - min(im.Left, im.Right) }))
 // timeN(t, "jasmin-lrsum-small", n, by(func(im Task) int { return d(im)*1000 + im.Left+ im.Right }))
 // timeN(t, "jasmin-lrsum-large", n, by(func(im Task) int { return d(im)*1000 - im.Left- im.Right }))
 // timeN(t, "jasmin-topnear", n, by(func(im Task) int { return d(im)*1000 + min(im.Top, im.N-1-im.Top) }))
 // timeN(t, "jasmin-topfar", n, by(func(im Task) int { return d(im)*1000 - min(im.Top, im.N-1-im.Top) }))
}
func scoreOf(img Task) int {
		fs := newFrameSearch(img)
		inner := uint32(1)<<uint(img.N-1) - 2
		score, rows := 0, len(fs.allowed)
		for k, a := range fs.allowed {
			score += popc(inner&^a) * (rows - k)
		}
		return score
}
func popc(x uint32) int { c := 0; for x != 0 { c++; x &= x-1 }; return c }
