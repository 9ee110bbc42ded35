package classify

import "testing"

func TestRules(t *testing.T) {
	for _, c := range []struct{ request, want string }{
		{"The login page crashes with a nil pointer panic, please fix it", Bug},
		{"Tests are failing on main since yesterday", Bug},
		{"Address the review comments on the PR: the naming is unclear and the handler is duplicated", Feedback},
		{"Bump the version and update the changelog for the release", Chore},
		{"Make the search faster; improve the performance of the index", Enhancement},
		{"Add a new endpoint for exporting invoices as CSV", Feature},
		{"hi", Unclassified},
		{"登录页面崩溃了，请修复", Bug},
		{"CSVエクスポートを追加して", Feature},
	} {
		if got := Rules(c.request); got.Class != c.want {
			t.Errorf("Rules(%q) = %+v, want %s", c.request, got, c.want)
		}
	}
}

func TestFirstRequest(t *testing.T) {
	got := FirstRequest([]string{"<command-message>init is analyzing</command-message>\n<command-name>/init</command-name>", "/clear", "  Fix the flaky test  "})
	if got != "Fix the flaky test" {
		t.Fatalf("%q", got)
	}
}
