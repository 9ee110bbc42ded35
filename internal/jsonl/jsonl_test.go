package jsonl

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestScanReportsBadLinesAndGoesOn(t *testing.T) {
	in := "{\"a\":1}\n\nnot json\n   \n{\"a\":2}\r\n{\"a\":3}"
	var got []string
	problems, err := Scan(strings.NewReader(in), func(n int, line []byte) error {
		if !json.Valid(line) {
			return errors.New("not JSON")
		}
		got = append(got, fmt.Sprintf("%d:%s", n, line))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{`1:{"a":1}`, `5:{"a":2}`, `6:{"a":3}`}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("lines %q, want %q", got, want)
	}
	if len(problems) != 1 || problems[0].Line != 3 || problems[0].Torn {
		t.Fatalf("problems %+v, want line 3", problems)
	}
}

func TestScanTornLastLine(t *testing.T) {
	problems, err := Scan(strings.NewReader("{\"a\":1}\n{\"a\":"), func(n int, line []byte) error {
		if !json.Valid(line) {
			return errors.New("not JSON")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) != 1 || !problems[0].Torn || problems[0].Line != 2 {
		t.Fatalf("problems %+v, want a torn line 2", problems)
	}
}

func TestScanLinesOfAnyLength(t *testing.T) {
	long := `{"x":"` + strings.Repeat("y", 3<<20) + `"}`
	in := "{\"a\":1}\n" + long + "\n{\"a\":2}\n"
	var sizes []int
	_, err := Scan(strings.NewReader(in), func(n int, line []byte) error {
		sizes = append(sizes, len(line))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{7, len(long), 7}; fmt.Sprint(sizes) != fmt.Sprint(want) {
		t.Fatalf("sizes %v, want %v", sizes, want)
	}
}

func TestScanStopAndFatal(t *testing.T) {
	in := "1\n2\n3\n"
	n := 0
	if _, err := Scan(strings.NewReader(in), func(int, []byte) error { n++; return Stop }); err != nil || n != 1 {
		t.Fatalf("Stop: %v after %d lines", err, n)
	}
	boom := errors.New("boom")
	if _, err := Scan(strings.NewReader(in), func(int, []byte) error { return Fatal{boom} }); !errors.Is(err, boom) {
		t.Fatalf("Fatal: %v", err)
	}
}

func TestAppendRepairsATornTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log.jsonl")
	os.WriteFile(path, []byte("{\"a\":1}\n{\"torn\":"), 0o644)
	if err := Append(context.Background(), dir, path, filepath.Join(dir, "lock"), []byte(`{"a":2}`)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	if string(b) != "{\"a\":1}\n{\"torn\":\n{\"a\":2}\n" {
		t.Fatalf("file:\n%s", b)
	}
}

func TestAppendRejectsNewlines(t *testing.T) {
	dir := t.TempDir()
	err := Append(context.Background(), dir, filepath.Join(dir, "l"), filepath.Join(dir, "lock"), []byte("a\nb"))
	if err == nil {
		t.Fatal("a line with a newline must be refused")
	}
}

func TestWriteFileAtomicReplacesWhole(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	os.WriteFile(path, []byte("old"), 0o644)
	failing := errors.New("disk full")
	err := WriteAtomic(dir, path, 0o644, func(w *bufio.Writer) error {
		w.WriteString("half")
		return failing
	})
	if !errors.Is(err, failing) {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Fatalf("a failed write changed the file: %q", b)
	}
	if err := WriteFileAtomic(dir, path, []byte("new"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("got %q %v", b, fi.Mode())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestWriteFileRename(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "sub", "f")
	if err := WriteFileRename(dir, path, []byte("one"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteFileRename(dir, path, []byte("two"), 0o600); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(b) != "two" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("got %q %v", b, fi.Mode())
	}
	// A rename onto a folder fails: the temporary file must not stay.
	target := filepath.Join(dir, "sub", "d")
	os.MkdirAll(filepath.Join(target, "x"), 0o755)
	if err := WriteFileRename(dir, target, []byte("x"), 0o644); err == nil {
		t.Fatal("renamed over a non-empty folder")
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(entries) != 2 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
}

func TestLockTimesOut(t *testing.T) {
	lock := filepath.Join(t.TempDir(), "l.lock")
	unlock, err := Lock(context.Background(), lock)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, ok, _ := TryLock(lock); ok {
		t.Fatal("TryLock took a held lock")
	}
	// flock locks belong to the open file, so a second handle in the same
	// process contends like another process would.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, lock); err == nil {
		t.Fatal("Lock took a held lock")
	}
}

// The concurrency test: many processes append at once; every line must be
// whole and valid, none lost, none duplicated.
func TestManyProcessesAppend(t *testing.T) {
	if os.Getenv("JSONL_APPENDER") != "" {
		return // running as a child: see TestHelperAppender
	}
	dir := t.TempDir()
	path, lock := filepath.Join(dir, "log.jsonl"), filepath.Join(dir, "log.lock")
	const procs, lines = 12, 150
	var cmds []*exec.Cmd
	for p := 0; p < procs; p++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperAppender$")
		cmd.Env = append(os.Environ(), "JSONL_APPENDER="+strconv.Itoa(p), "JSONL_PATH="+path, "JSONL_LOCK="+lock, "JSONL_LINES="+strconv.Itoa(lines))
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, c := range cmds {
		if err := c.Wait(); err != nil {
			t.Fatalf("appender: %v", err)
		}
	}
	seen := map[string]bool{}
	problems, err := ScanFile(path, func(n int, line []byte) error {
		var v struct {
			P, I int
			Pad  string
		}
		if err := json.Unmarshal(line, &v); err != nil {
			return err
		}
		k := fmt.Sprintf("%d/%d", v.P, v.I)
		if seen[k] {
			return fmt.Errorf("duplicate %s", k)
		}
		seen[k] = true
		return nil
	})
	if err != nil || len(problems) > 0 {
		t.Fatalf("bad lines: %v %v", err, problems)
	}
	if len(seen) != procs*lines {
		t.Fatalf("%d lines, want %d", len(seen), procs*lines)
	}
}

func TestHelperAppender(t *testing.T) {
	p := os.Getenv("JSONL_APPENDER")
	if p == "" {
		t.Skip("only runs as a child of TestManyProcessesAppend")
	}
	n, _ := strconv.Atoi(os.Getenv("JSONL_LINES"))
	pad := strings.Repeat("x", 3000) // longer than a pipe buffer's atomic size
	for i := 0; i < n; i++ {
		line := fmt.Sprintf(`{"P":%s,"I":%d,"Pad":%q}`, p, i, pad)
		if err := Append(context.Background(), filepath.Dir(os.Getenv("JSONL_PATH")), os.Getenv("JSONL_PATH"), os.Getenv("JSONL_LOCK"), []byte(line)); err != nil {
			t.Fatal(err)
		}
	}
}
