package evolve

import (
	"bytes"
	"context"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/devlearn/devlearn/internal/project"
)

// bulk is a batch of n files, version v of each.
func bulk(n, v int) []Change {
	out := make([]Change, n)
	for i := range out {
		out[i] = Change{Path: fmt.Sprintf(".claude/commands/self-learning/f%d.md", i), Data: []byte(fmt.Sprintf("---\nkey: f%d\n---\nversion %d\n", i, v))}
	}
	return out
}

func apply(t *testing.T, p *project.Project, at time.Time, changes ...Change) *Entry {
	t.Helper()
	e, err := New(p, at, Trigger{Command: "test"}).Apply(context.Background(), Reason{Text: "t"}, changes...)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// looseCount counts the loose copies.
func looseCount(t *testing.T, p *project.Project) int {
	t.Helper()
	objs, err := listLoose(p)
	if err != nil {
		t.Fatal(err)
	}
	return len(objs)
}

func packsOf(t *testing.T, p *project.Project) []string {
	t.Helper()
	packs, err := Packs(p)
	if err != nil {
		t.Fatal(err)
	}
	return packs
}

func TestBulkBatchKeepsItsCopiesInOnePack(t *testing.T) {
	p := newProject(t)
	e := apply(t, p, now, bulk(packMin, 1)...)
	if n := looseCount(t, p); n != 0 {
		t.Fatalf("%d loose copies, want 0", n)
	}
	packs := packsOf(t, p)
	if len(packs) != 1 {
		t.Fatalf("packs %v", packs)
	}
	// The batch's marker names the pack, for the sync's fallback list.
	if m := marker(t, New(p, now, Trigger{}).donePath()); m.Pack != packs[0] || !contains(New(p, now, Trigger{}).files(m), packs[0]) {
		t.Fatalf("marker's pack %q, packs %v", m.Pack, packs)
	}
	for i, fc := range e.Files {
		// Found in the pack even once the file itself no longer holds it.
		os.WriteFile(p.Path(fc.Path), []byte("changed by a person\n"), 0o644)
		data, ok, err := Content(p, fc.Path, fc.After)
		if err != nil || !ok || string(data) != string(bulk(packMin, 1)[i].Data) {
			t.Fatalf("%s: %q %v %v", fc.Path, data, ok, err)
		}
	}
	// A session end's few copies stay loose.
	apply(t, p, now, bulk(5, 2)...)
	if n := looseCount(t, p); n != 6 {
		t.Fatalf("%d loose copies, want 6 (the person's one content before, 5 after)", n)
	}
	if packs := packsOf(t, p); len(packs) != 1 {
		t.Fatalf("a small batch packed: %v", packs)
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestPackLeavesOutWhatIsKeptLoose(t *testing.T) {
	p := newProject(t)
	small := bulk(10, 1)
	apply(t, p, now, small...) // 10 loose copies of version 1
	e := apply(t, p, now, bulk(packMin, 2)...)
	packs := packsOf(t, p)
	if len(packs) != 1 {
		t.Fatalf("packs %v", packs)
	}
	listed, err := listPack(packs[0])
	if err != nil {
		t.Fatal(err)
	}
	// packMin afters; the 10 befores are loose already.
	if len(listed) != packMin {
		t.Fatalf("pack holds %d copies, want %d", len(listed), packMin)
	}
	for _, fc := range e.Files {
		for _, h := range []string{fc.Before, fc.After} {
			if _, ok, err := Content(p, "absent.md", h); err != nil || !ok {
				t.Fatalf("%s: %s not kept: %v", fc.Path, h, err)
			}
		}
	}
}

func TestPacksAreBounded(t *testing.T) {
	p := newProject(t)
	for i := range packMax {
		apply(t, p, now, bulk(packMin, i)...)
	}
	if n := len(packsOf(t, p)); n != packMax {
		t.Fatalf("%d packs, want %d", n, packMax)
	}
	before := looseCount(t, p)
	apply(t, p, now, bulk(packMin, packMax)...)
	if n := len(packsOf(t, p)); n != packMax {
		t.Fatalf("%d packs past the bound", n)
	}
	// What each file held (packed) and holds now.
	if n := looseCount(t, p) - before; n != 2*packMin {
		t.Fatalf("%d new loose copies, want %d", n, 2*packMin)
	}
}

// A torn or corrupt pack is copies not kept: never an error, never a
// content other than the one asked for.
func TestCorruptPackIsCopiesNotKept(t *testing.T) {
	p := newProject(t)
	var copies []packed
	want := map[string]string{}
	for i := range 40 {
		data := fmt.Sprintf("copy %d %s\n", i, bytes.Repeat([]byte{'x'}, i*7))
		h := BlobHash([]byte(data))
		copies = append(copies, packed{h, []byte(data)})
		want[h] = data
	}
	good := encodePack(copies)
	path := filepath.Join(PackDir(p), packName(copies))
	os.MkdirAll(PackDir(p), 0o755)
	check := func(what string, bad []byte) {
		t.Helper()
		if err := os.WriteFile(path, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		for h, data := range want {
			got, ok, err := Content(p, "absent.md", h)
			if err != nil || (ok && string(got) != data) {
				t.Fatalf("%s: %s: %q %v %v", what, h, got, ok, err)
			}
		}
		if err := EachPacked(path, func(h string, data []byte) error {
			if want[h] != string(data) {
				t.Fatalf("%s: EachPacked gave %s as %q", what, h, data)
			}
			return nil
		}); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if _, err := listObjects(p); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	check("whole", good)
	for n := 0; n < len(good); n += 13 {
		check(fmt.Sprintf("torn at %d", n), good[:n])
	}
	r := rand.New(rand.NewSource(1))
	for range 300 {
		bad := bytes.Clone(good)
		i := r.Intn(len(bad))
		bad[i] ^= byte(1 + r.Intn(255))
		check(fmt.Sprintf("byte %d flipped", i), bad)
	}
	// Whole copies survive an explode of a corrupt pack; the others are
	// not kept, and nothing wrong is written loose.
	bad := bytes.Clone(good)
	bad[len(bad)-1] ^= 1
	os.WriteFile(path, bad, 0o644)
	if err := Explode(p, path); err != nil {
		t.Fatal(err)
	}
	kept := 0
	for h, data := range want {
		if got, err := os.ReadFile(ObjectPath(p, h)); err == nil {
			kept++
			if string(got) != data {
				t.Fatalf("exploded %s as %q", h, got)
			}
		}
	}
	if kept != len(want)-1 {
		t.Fatalf("%d copies kept loose, want %d", kept, len(want)-1)
	}
}

func TestExplodeIsIdempotentAndKeepsTheTime(t *testing.T) {
	p := newProject(t)
	e := apply(t, p, now, bulk(packMin, 1)...)
	pk := packsOf(t, p)[0]
	old := time.Now().Add(-48 * time.Hour).Truncate(time.Second)
	os.Chtimes(pk, old, old)
	// A crash after part of an explode: some copies loose already.
	first, second := e.Files[0].After, e.Files[1].After
	os.MkdirAll(filepath.Dir(ObjectPath(p, first)), 0o755)
	os.WriteFile(ObjectPath(p, first), bulk(packMin, 1)[0].Data, 0o644)
	// And a loose copy that is not whole: replaced by the packed one.
	os.MkdirAll(filepath.Dir(ObjectPath(p, second)), 0o755)
	os.WriteFile(ObjectPath(p, second), []byte("torn"), 0o644)
	for range 2 {
		if err := Explode(p, pk); err != nil {
			t.Fatal(err)
		}
	}
	if len(packsOf(t, p)) != 0 {
		t.Fatal("the pack is still there")
	}
	if n := looseCount(t, p); n != packMin {
		t.Fatalf("%d loose copies, want %d", n, packMin)
	}
	for i, fc := range e.Files[1:] {
		fi, err := os.Stat(ObjectPath(p, fc.After))
		if err != nil || !fi.ModTime().Equal(old) {
			t.Fatalf("%s: %v %v, want the pack's time %v", fc.Path, fi.ModTime(), err, old)
		}
		if data, _ := os.ReadFile(ObjectPath(p, fc.After)); string(data) != string(bulk(packMin, 1)[i+1].Data) {
			t.Fatalf("%s: exploded as %q", fc.Path, data)
		}
	}
}

// The same batches, kept loose in one clone and packed in another, show
// the same history and diffs, plan the same reverts and prune alike.
func TestPackedCopiesBehaveAsLooseOnes(t *testing.T) {
	day := 24 * time.Hour
	run := func(min int) (*project.Project, []Entry) {
		defer func(old int) { packMin = old }(packMin)
		packMin = min
		p := newProject(t)
		apply(t, p, now, bulk(80, 1)...)
		apply(t, p, now.Add(day), bulk(3, 2)...)
		apply(t, p, now.Add(2*day), bulk(80, 3)...)
		apply(t, p, now.Add(3*day), bulk(2, 4)...)
		entries, _, err := ReadLog(p)
		if err != nil {
			t.Fatal(err)
		}
		return p, entries
	}
	loose, le := run(1 << 30)
	packed, pe := run(64)
	if len(packsOf(t, packed)) != 2 || len(packsOf(t, loose)) != 0 {
		t.Fatalf("packs: %d packed, %d loose", len(packsOf(t, packed)), len(packsOf(t, loose)))
	}
	if !reflect.DeepEqual(le, pe) {
		t.Fatal("the audit logs differ")
	}
	same := func(what string) {
		t.Helper()
		for i := range le {
			dl, err1 := Diffs(loose, &le[i])
			dp, err2 := Diffs(packed, &pe[i])
			if err1 != nil || err2 != nil || !reflect.DeepEqual(dl, dp) {
				t.Fatalf("%s: diffs of %s differ (%v %v)", what, le[i].ID, err1, err2)
			}
			rl, err1 := PlanRevert(loose, le, &le[i], nil)
			rp, err2 := PlanRevert(packed, pe, &pe[i], nil)
			if fmt.Sprint(err1) != fmt.Sprint(err2) || (err1 == nil && !reflect.DeepEqual(rl.Changes, rp.Changes)) {
				t.Fatalf("%s: revert plans of %s differ: %v / %v", what, le[i].ID, err1, err2)
			}
		}
	}
	same("as written")
	ctx := context.Background()
	for _, o := range []PruneOptions{
		{Now: now.Add(4 * day), DryRun: true, MaxBytes: 1},
		{Now: now.Add(4 * day)},
		{Now: now.Add(30 * day), MaxAge: 200 * day},
		{Now: now.Add(4 * day), MaxBytes: 4000},
		{Now: now.Add(100 * day), MaxAge: 10 * day},
	} {
		rl, err1 := Prune(ctx, loose, o)
		rp, err2 := Prune(ctx, packed, o)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if !reflect.DeepEqual(rl, rp) {
			t.Fatalf("prune %+v:\nloose  %+v\npacked %+v", o, rl, rp)
		}
		same(fmt.Sprintf("after prune %+v", o))
		if len(rl.Removed) == 0 && len(packsOf(t, packed)) != 2 {
			t.Fatalf("prune %+v removed nothing but exploded a pack", o)
		}
	}
	if len(packsOf(t, packed)) != 0 {
		t.Fatal("prune removed packed copies without exploding their packs")
	}
}

// Where no pack can be written, a bulk batch keeps its copies loose.
func TestNoPackWhereNoneCanBeWritten(t *testing.T) {
	for _, what := range []string{"file", "link"} {
		t.Run(what, func(t *testing.T) {
			p := newProject(t)
			os.MkdirAll(p.StatePath("objects"), 0o755)
			if what == "file" {
				os.WriteFile(PackDir(p), []byte("not a folder"), 0o644)
			} else {
				outside := t.TempDir()
				if err := os.Symlink(outside, PackDir(p)); err != nil {
					t.Skip(err)
				}
				defer func() {
					if ents, _ := os.ReadDir(outside); len(ents) != 0 {
						t.Fatalf("written through the link: %v", ents)
					}
				}()
			}
			e := apply(t, p, now, bulk(packMin, 1)...)
			if n := looseCount(t, p); n != packMin {
				t.Fatalf("%d loose copies, want %d", n, packMin)
			}
			for _, fc := range e.Files {
				if _, ok, err := Content(p, "absent.md", fc.After); err != nil || !ok {
					t.Fatalf("%s: %v %v", fc.Path, ok, err)
				}
			}
			if _, err := Prune(context.Background(), p, PruneOptions{Now: now}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
