package reconcile

import "testing"

func TestConfigTrue(t *testing.T) {
	for _, c := range []struct {
		conf string
		want bool
	}{
		{"[core]\n\tsparseCheckout = true\n", true},
		{"[core]\n\tsparsecheckout=yes\n", true},
		{"[Core]\n\tSparseCheckout = 1 # on\n", true},
		{"[core]\n\tsparseCheckout\n", true},
		{"[core] sparseCheckout = on\n", true},
		{"[core]\n\tsparseCheckout = \"true\"\n", true},
		{"[core]\n\tsparseCheckout = false\n", false},
		{"[core]\n\tsparseCheckout = true\n\tsparseCheckout = false\n", false},
		{"[core]\n\t# sparseCheckout = true\n", false},
		{"[core]\n\t; sparseCheckout = true\n", false},
		{"[core \"x\"]\n\tsparseCheckout = true\n", false},
		{"[extensions]\n\tsparseCheckout = true\n[core]\n\tbare = false\n", false},
		{"[core]\n\tsparseCheckoutCone = true\n", false},
		{"[core]\n\tbare = false\n[remote \"origin\"]\n\turl = x\n[core]\n\tsparseCheckout = true\n", true},
		{"", false},
	} {
		if got := configTrue([]byte(c.conf), "core", "sparsecheckout"); got != c.want {
			t.Errorf("%q: %v, want %v", c.conf, got, c.want)
		}
	}
}
