package repopath

import "testing"

func TestRel(t *testing.T) {
	for _, tc := range []struct{ root, cwd, p, want string }{
		{"/work/shop", "/work/shop", "/work/shop/internal/x.go", "internal/x.go"},
		{"/work/shop", "/work/shop/web", "src/App.tsx", "web/src/App.tsx"},
		{"/work/shop", "", "./web/src/App.tsx", "web/src/App.tsx"},
		{"/work/shop", "/work/shop", "/work/shop", "."},
		{"/work/shop", "/work/shop", "/work/shopping/x.go", "/work/shopping/x.go"},
		{"/work/shop", "/work/shop", "/etc/passwd", "/etc/passwd"},
		{"/work/shop", "/work/shop", "../other/x.go", "/work/other/x.go"},
		// Windows, read anywhere: separators, drive letters and case.
		{`C:\Users\bob\shop`, `C:\Users\bob\shop`, `c:\users\BOB\shop\Web\src\A.tsx`, "Web/src/A.tsx"},
		{`C:\Users\bob\shop`, `C:\Users\bob\shop\web`, `src\A.tsx`, "web/src/A.tsx"},
		{`C:\Users\bob\shop`, "", `D:\other\A.tsx`, "d:/other/A.tsx"},
		{"/work/shop", "/work/shop", `/work/shop\web\src\A.tsx`, "web/src/A.tsx"},
		{"", "", `web\src\A.tsx`, "web/src/A.tsx"},
		{`\\server\share\shop`, "", `\\server\share\shop\x.go`, "x.go"},
	} {
		if got := Rel(tc.root, tc.cwd, tc.p); got != tc.want {
			t.Errorf("Rel(%q, %q, %q) = %q, want %q", tc.root, tc.cwd, tc.p, got, tc.want)
		}
	}
}

func TestIsAbs(t *testing.T) {
	for p, want := range map[string]bool{
		"/x": true, `C:\x`: true, "c:/x": true, `\\srv\share`: true,
		"x/y": false, "C:x": false, "": false, "**/x": false,
	} {
		if got := IsAbs(p); got != want {
			t.Errorf("IsAbs(%q) = %v", p, got)
		}
	}
}

func TestStored(t *testing.T) {
	for _, tc := range []struct{ root, cwd, p, want string }{
		{"/work/shop", "/work/shop/web", "/work/shop/web/src/A.tsx", "web/src/A.tsx"},
		// Another clone: no home folder is stored, the tail still names it.
		{"/work/shop", "/home/alice/shop", "/home/alice/shop/internal/orders/checkout.go", "internal/orders/checkout.go"},
		{"/work/shop", "/work/shop", "/home/alice/shop/internal/orders/checkout.go", "orders/checkout.go"},
		{"", `C:\Users\bob\shop`, `C:\Users\bob\shop\web\src\A.tsx`, "web/src/A.tsx"},
		{"", "", `C:\Users\bob\shop\web\src\A.tsx`, "src/A.tsx"},
		{"/work/shop", "/work/shop", "scripts/hooks/", "scripts/hooks/"},
		{"/work/shop", "/work/shop", `C:\Users\bob\shop\scripts\hooks\`, "scripts/hooks/"},
	} {
		if got := Stored(tc.root, tc.cwd, tc.p); got != tc.want {
			t.Errorf("Stored(%q, %q, %q) = %q, want %q", tc.root, tc.cwd, tc.p, got, tc.want)
		}
	}
}
