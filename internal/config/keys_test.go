package config

import (
	"strings"
	"testing"
)

func TestSetInValidatesThroughParse(t *testing.T) {
	in := []byte("{\n  \"$schema\": \"./learning.schema.json\",\n  \"serve\": {\"threshold\": 0.50}\n}\n")
	for _, tc := range []struct{ key, val, want, err string }{
		{"extractor.model", "haiku", `"model": "haiku"`, ""},
		{"worker.batch_size", "7", `"batch_size": 7`, ""},
		{"serve.enabled", "false", `"enabled": false`, ""},
		{"serve.read_only_tools", "Read, Grep", `"Read",`, ""},
		{"extractor.command", `["my-llm","-q"]`, `"my-llm",`, ""},
		{"worker.batch_size", "seven", "", `key "worker.batch_size": "seven" is not a whole number`},
		{"worker.batch_size", "0", "", `key "worker.batch_size": 0 is out of range (allowed: 1 to 1000)`},
		{"serve.enabled", "yes", "", `is not true or false`},
	} {
		k, ok := LookupKey(tc.key)
		if !ok {
			t.Fatalf("no key %s", tc.key)
		}
		v, err := k.ParseValue(tc.val)
		var out []byte
		if err == nil {
			out, err = SetIn(in, tc.key, v)
		}
		if err == nil {
			_, err = Parse("learning.json", out)
		}
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s=%s: got %v, want %s", tc.key, tc.val, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s=%s: %v", tc.key, tc.val, err)
		case tc.err == "" && !strings.Contains(string(out), tc.want):
			t.Errorf("%s=%s:\n%s", tc.key, tc.val, out)
		case tc.err == "" && (!strings.Contains(string(out), `"threshold": 0.50`) || !strings.HasPrefix(string(out), "{\n  \"$schema\"")):
			t.Errorf("other keys not kept as written:\n%s", out)
		}
	}
	if got := Default().Get("thresholds.pitfall.required"); got != "2" {
		t.Fatal(got)
	}
	if n := len(Keys()); n < 20 {
		t.Fatalf("%d keys", n)
	}
}
