package render

import (
	"testing"

	"github.com/devlearn/devlearn/internal/observe"
)

func TestPitfallAreasAreStoredRelativeToTheRoot(t *testing.T) {
	for _, tc := range []struct{ details, want string }{
		{"area: /work/shop/internal/orders/checkout.go; issue: x", "area: internal/orders/checkout.go; issue: x"},
		{`area: C:\Users\bob\shop\web\src\App.tsx, web\src\b.ts; issue: y`, "area: src/App.tsx, web/src/b.ts; issue: y"},
		{"area: db/migrations/; issue: z", "area: db/migrations/; issue: z"},
		{"issue: no area", "issue: no area"},
	} {
		if got := withStoredArea(observe.Observation{Details: tc.details}, "/work/shop").Details; got != tc.want {
			t.Errorf("%q: %q, want %q", tc.details, got, tc.want)
		}
	}
}
