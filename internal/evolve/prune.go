package evolve

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// The kept copies (<git-common-dir>/devlearn/objects) grow with every
// change. Pruning bounds them by age and by a size budget, oldest first,
// and never takes the newest copy of what any file held before devlearn
// last replaced it, so the latest change to every file can always be
// reverted.

// PruneOptions bound the kept copies.
type PruneOptions struct {
	Now time.Time
	// MaxAge removes copies last needed by an entry older than this; 0
	// keeps them whatever their age.
	MaxAge time.Duration
	// MaxBytes is the size budget of all copies; 0 is no budget.
	MaxBytes int64
	DryRun   bool
}

// Pruned is one copy removed (or, in a dry run, that would be).
type Pruned struct {
	Hash string `json:"hash"`
	Size int64  `json:"size"`
	// Time is when an entry last needed it (or when it was kept, for a
	// copy no entry names).
	Time string `json:"time"`
	Why  string `json:"why"` // "age" or "budget"
}

// PruneResult says what pruning found and did.
type PruneResult struct {
	DryRun       bool     `json:"dry_run,omitempty"`
	Objects      int      `json:"objects"` // copies before pruning
	Bytes        int64    `json:"bytes"`
	Protected    int      `json:"protected"` // newest copy of a file: never pruned
	Removed      []Pruned `json:"removed"`
	RemovedBytes int64    `json:"removed_bytes"`
}

type object struct {
	hash, path string
	size       int64
	at         int64 // unix seconds: when an entry last needed it
	named      bool  // some entry names it
	protected  bool
	// packs hold the copy too (or only): exploded before it is removed,
	// so that removing it is removing its loose file.
	packs []string
}

// Prune removes kept copies by opts. It holds the writer's lock of every
// working tree of the clone while it works, since they share the copies,
// and reads every working tree's audit log to know which copies are in
// use.
func Prune(ctx context.Context, p *project.Project, opts PruneOptions) (*PruneResult, error) {
	trees := p.Worktrees()
	for _, t := range trees {
		unlock, err := jsonl.Lock(ctx, t.LockPath(".memory/evolution"))
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	objs, err := listObjects(p)
	if err != nil {
		return nil, err
	}
	byHash := make(map[string]*object, len(objs))
	res := &PruneResult{DryRun: opts.DryRun, Objects: len(objs), Removed: []Pruned{}}
	for _, o := range objs {
		byHash[o.hash] = o
		res.Bytes += o.size
	}
	for _, t := range trees {
		entries, _, err := ReadLog(t)
		if err != nil {
			return nil, err
		}
		// The newest copy of each file: what the last entry with a
		// content before replaced (the log is in the order of its writes).
		newest := map[string]string{}
		for _, e := range entries {
			at, err := time.Parse(time.RFC3339, e.Time)
			if err != nil {
				continue
			}
			for _, fc := range e.Files {
				for _, h := range []string{fc.Before, fc.After} {
					if o := byHash[h]; o != nil {
						if !o.named || at.Unix() > o.at {
							o.at = at.Unix()
						}
						o.named = true
					}
				}
				if fc.Before != "" {
					newest[fc.Path] = fc.Before
				}
			}
		}
		for _, h := range newest {
			if o := byHash[h]; o != nil && !o.protected {
				o.protected = true
				res.Protected++
			}
		}
	}

	// Oldest first; ties by hash, so two runs pick alike.
	slices.SortFunc(objs, func(a, b *object) int {
		if a.at != b.at {
			if a.at < b.at {
				return -1
			}
			return 1
		}
		return strings.Compare(a.hash, b.hash)
	})
	total := res.Bytes
	exploded := map[string]bool{}
	remove := func(o *object, why string) error {
		if !opts.DryRun {
			for _, pk := range o.packs {
				if !exploded[pk] {
					if err := Explode(p, pk); err != nil {
						return err
					}
					exploded[pk] = true
				}
			}
			if err := safefile.Remove(p.CommonDir, o.path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		total -= o.size
		res.RemovedBytes += o.size
		res.Removed = append(res.Removed, Pruned{Hash: o.hash, Size: o.size, Time: time.Unix(o.at, 0).UTC().Format(time.RFC3339), Why: why})
		o.protected = true // taken care of
		return nil
	}
	if opts.MaxAge > 0 {
		cut := opts.Now.Add(-opts.MaxAge).Unix()
		for _, o := range objs {
			if !o.protected && o.at < cut {
				if err := remove(o, "age"); err != nil {
					return res, err
				}
			}
		}
	}
	if opts.MaxBytes > 0 {
		for _, o := range objs {
			if total <= opts.MaxBytes {
				break
			}
			if !o.protected {
				if err := remove(o, "budget"); err != nil {
					return res, err
				}
			}
		}
	}
	return res, nil
}

// listObjects walks the kept copies, loose and packed, once each.
func listObjects(p *project.Project) ([]*object, error) {
	out, err := listLoose(p)
	if err != nil {
		return nil, err
	}
	packs, err := Packs(p)
	if err != nil {
		return nil, err
	}
	byHash := make(map[string]*object, len(out))
	for _, o := range out {
		byHash[o.hash] = o
	}
	for _, path := range packs {
		fi, err := os.Stat(path)
		if err != nil {
			continue
		}
		copies, err := listPack(path)
		if err != nil {
			return nil, err
		}
		at := fi.ModTime().Unix()
		for _, c := range copies {
			o := byHash[c.hash]
			if o == nil {
				o = &object{hash: c.hash, path: ObjectPath(p, c.hash), size: c.size, at: at}
				byHash[c.hash] = o
				out = append(out, o)
			}
			// Kept first wherever it was kept first.
			o.at = min(o.at, at)
			o.packs = append(o.packs, path)
		}
	}
	return out, nil
}

// listLoose walks the loose copies.
func listLoose(p *project.Project) ([]*object, error) {
	root := p.StatePath("objects")
	var out []*object
	dirs, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	for _, d := range dirs {
		if !d.IsDir() || len(d.Name()) != 2 {
			continue
		}
		files, err := os.ReadDir(filepath.Join(root, d.Name()))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			if f.IsDir() || strings.HasPrefix(f.Name(), ".") {
				continue // a copy being written (jsonl's temporary name)
			}
			fi, err := f.Info()
			if err != nil {
				continue
			}
			out = append(out, &object{
				hash: d.Name() + f.Name(), path: filepath.Join(root, d.Name(), f.Name()),
				size: fi.Size(), at: fi.ModTime().Unix(),
			})
		}
	}
	return out, nil
}
