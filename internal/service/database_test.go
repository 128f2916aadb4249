package service

import "testing"

func TestGenericPlans(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct{ in, want string }{
		{"postgres://u@h:5432/db?sslmode=disable", "postgres://u@h:5432/db?plan_cache_mode=force_generic_plan&sslmode=disable"},
		{"postgresql://u@h/db", "postgresql://u@h/db?plan_cache_mode=force_generic_plan"},
		{"postgres://u@h/db?plan_cache_mode=auto", "postgres://u@h/db?plan_cache_mode=auto"},
		{"host=h user=u dbname=db", "host=h user=u dbname=db plan_cache_mode=force_generic_plan"},
		{"host=h plan_cache_mode=auto", "host=h plan_cache_mode=auto"},
	} {
		if got := genericPlans(tt.in); got != tt.want {
			t.Errorf("genericPlans(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
