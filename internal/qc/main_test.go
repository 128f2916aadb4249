package qc
import ("testing";"time";"context";"github.com/nqueens/nqueens/solver")
func TestTime(t *testing.T){
 for _, n := range []int{16} {
  st:=time.Now()
  c,_:=solver.Count(context.Background(), n, solver.CountOptions{Workers:1})
  t.Logf("N=%d %+v %v", n, c, time.Since(st))
 }
}
