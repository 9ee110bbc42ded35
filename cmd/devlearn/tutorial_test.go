package main

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
)

// shownRun is a devlearn command as the tutorial shows it, with its
// output.
type shownRun struct{ cmd, out string }

func (r shownRun) String() string { return fmt.Sprintf("$ %s\n%s", r.cmd, r.out) }

// TestTutorialInSync keeps docs/tutorial.md true: every devlearn command
// the page shows, in its order and with the output it shows, is the one
// testdata/script/tutorial.txtar runs and checks (an exec followed by its
// cmp, or by "! stdout ." for a command that prints nothing). The script
// proves the outputs; this proves the page shows the script's.
func TestTutorialInSync(t *testing.T) {
	doc, err := os.ReadFile("../../docs/tutorial.md")
	if err != nil {
		t.Fatal(err)
	}
	ar, err := txtar.ParseFile("../../testdata/script/tutorial.txtar")
	if err != nil {
		t.Fatal(err)
	}
	want := scriptRuns(t, ar)
	got := docRuns(string(doc))
	if len(want) < 8 {
		t.Fatalf("the script shows only %d commands: the parse is broken", len(want))
	}
	for i := 0; i < max(len(got), len(want)); i++ {
		switch {
		case i >= len(got):
			t.Fatalf("docs/tutorial.md stops before the script's command %d:\n%s", i+1, want[i])
		case i >= len(want):
			t.Fatalf("docs/tutorial.md shows command %d, which the script does not run:\n%s", i+1, got[i])
		case got[i] != want[i]:
			t.Fatalf("docs/tutorial.md's command %d differs from the script's.\npage:\n%s\nscript:\n%s", i+1, got[i], want[i])
		}
	}
}

// docRuns reads the devlearn commands of the page's console blocks: a
// line "$ devlearn ..." and the lines after it up to the next "$ " line
// or the block's end.
func docRuns(doc string) []shownRun {
	var out []shownRun
	in := false
	cur := -1
	for _, line := range strings.Split(doc, "\n") {
		switch {
		case strings.HasPrefix(line, "```console"):
			in, cur = true, -1
			continue
		case in && strings.HasPrefix(line, "```"):
			in, cur = false, -1
			continue
		case !in:
			continue
		}
		if cmd, ok := strings.CutPrefix(line, "$ "); ok {
			cur = -1
			if strings.HasPrefix(cmd, "devlearn ") {
				out = append(out, shownRun{cmd: cmd})
				cur = len(out) - 1
			}
			continue
		}
		if cur >= 0 {
			out[cur].out += line + "\n"
		}
	}
	return out
}

// scriptRuns reads the commands the script shows: "exec devlearn ..."
// (after "stdin FILE": "devlearn ... < FILE") followed by "cmp stdout F"
// or "cmpenv stdout F" (the output is F, $WORK/shop shown as ~/shop) or
// "! stdout ." (no output).
func scriptRuns(t *testing.T, ar *txtar.Archive) []shownRun {
	files := map[string]string{}
	for _, f := range ar.Files {
		files[f.Name] = string(f.Data)
	}
	var out []shownRun
	lines := strings.Split(string(ar.Comment), "\n")
	stdin := ""
	for i, line := range lines {
		line = strings.TrimSpace(line)
		if f, ok := strings.CutPrefix(line, "stdin "); ok {
			stdin = f
			continue
		}
		cmd, ok := strings.CutPrefix(line, "exec ")
		if !ok {
			continue
		}
		in := stdin
		stdin = ""
		if !strings.HasPrefix(cmd, "devlearn ") || i+1 >= len(lines) {
			continue
		}
		if in != "" {
			cmd += " < " + in
		}
		next := strings.Fields(lines[i+1])
		switch {
		case len(next) == 3 && (next[0] == "cmp" || next[0] == "cmpenv") && next[1] == "stdout":
			name := strings.TrimPrefix(next[2], "$WORK/")
			data, ok := files[name]
			if !ok {
				t.Fatalf("tutorial.txtar compares with %s, which it does not hold", next[2])
			}
			out = append(out, shownRun{cmd: cmd, out: strings.ReplaceAll(data, "$WORK/shop", "~/shop")})
		case strings.Join(next, " ") == "! stdout .":
			out = append(out, shownRun{cmd: cmd})
		}
	}
	return out
}
