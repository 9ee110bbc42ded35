package gitx

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/format/index"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
)

// Where resolve took a file's three versions from.
const (
	FromIndex   = "index"   // the stages git keeps for a path it could not merge
	FromMarkers = "markers" // the conflict markers in the file
)

// ResolveOptions says where to resolve.
type ResolveOptions struct {
	Dir    string // any folder of the worktree
	DryRun bool   // compute and report, write nothing
}

// ResolvedFile is what resolve did, or would do, with one file.
type ResolvedFile struct {
	Path       string        `json:"path"`
	From       string        `json:"from"`
	Clean      bool          `json:"clean"`
	Staged     bool          `json:"staged"`
	Reason     string        `json:"reason,omitempty"`
	Renumbered []Renumbering `json:"renumbered,omitempty"`
}

// ResolveResult is the outcome of Resolve.
type ResolveResult struct {
	Files []ResolvedFile `json:"files"`
	// Anchors are the manifest entries moved to their section's new number.
	Anchors []Reanchored `json:"anchors,omitempty"`
	// Written lists the files written (or that would be), Unstaged those
	// among them that 'git add' must still take.
	Written  []string `json:"written,omitempty"`
	Unstaged []string `json:"unstaged,omitempty"`
	// StageHint says why resolved files were not staged, if they were not.
	StageHint string `json:"stage_hint,omitempty"`
	// Other are the conflicted paths that are not devlearn's files.
	Other  []string `json:"other_conflicts,omitempty"`
	DryRun bool     `json:"dry_run"`
}

// Unresolved lists the devlearn files still in conflict.
func (r *ResolveResult) Unresolved() []string {
	var out []string
	for _, f := range r.Files {
		if !f.Clean {
			out = append(out, f.Path)
		}
	}
	return out
}

// Resolve turns devlearn's files that a merge left in conflict (a merge
// without the driver: a machine without devlearn, a hosting site's merge
// button) into what the driver would have made. A path git still has in
// conflict is merged from the three versions in the index, exactly as the
// driver would have, and staged; a file with conflict markers but no such
// record (added or committed with its markers) is merged from the sides its
// markers hold. A file that cannot be merged by meaning is left as it is
// and reported. Then the manifest's anchors are settled against the
// knowledge files (SettleAnchors).
func Resolve(ctx context.Context, opts ResolveOptions) (*ResolveResult, error) {
	proj, err := project.Find(opts.Dir)
	if err != nil {
		return nil, err
	}
	res := &ResolveResult{Files: []ResolvedFile{}, DryRun: opts.DryRun}
	idx, idxErr := readIndex(proj.GitDir)
	stages := map[string]*[4]*index.Entry{}
	if idx != nil {
		for _, e := range idx.Entries {
			if e.Stage == 0 {
				continue
			}
			if stages[e.Name] == nil {
				stages[e.Name] = &[4]*index.Entry{}
			}
			stages[e.Name][e.Stage] = e
		}
	}
	var fromIndex []string
	for p := range stages {
		if IsDevlearnFile(p) {
			fromIndex = append(fromIndex, p)
		} else {
			res.Other = append(res.Other, p)
		}
	}
	slices.Sort(fromIndex)
	slices.Sort(res.Other)

	results := map[string][]byte{} // resolved content by path
	mode := map[string]filemode.FileMode{}
	if len(fromIndex) > 0 {
		r, err := openRepo(proj.Root)
		if err != nil {
			return nil, err
		}
		for _, p := range fromIndex {
			st := stages[p]
			f := ResolvedFile{Path: p, From: FromIndex}
			if st[2] == nil || st[3] == nil {
				f.Reason = "deleted on one side and changed on the other; keep it with 'git add' or drop it with 'git rm'"
				res.Files = append(res.Files, f)
				continue
			}
			var data [4][]byte
			for i := 1; i <= 3; i++ {
				if st[i] == nil {
					continue
				}
				if st[i].Mode != filemode.Regular && st[i].Mode != filemode.Executable {
					f.Reason = "not a regular file on every side"
					break
				}
				if data[i], err = readBlob(r.Storer, st[i].Hash); err != nil {
					return nil, fmt.Errorf("%s: read stage %d: %w", p, i, err)
				}
			}
			if f.Reason == "" {
				out := MergeFile(p, data[1], data[2], data[3])
				f.Clean, f.Reason, f.Renumbered = out.Clean, out.Reason, out.Renumbered
				if out.Clean {
					results[p] = out.Data
					mode[p] = st[2].Mode
				}
			}
			res.Files = append(res.Files, f)
		}
	}

	marked, err := markedFiles(proj, stages)
	if err != nil {
		return nil, err
	}
	for _, p := range marked {
		data, err := os.ReadFile(proj.Path(p))
		if err != nil {
			return nil, err
		}
		f := ResolvedFile{Path: p, From: FromMarkers}
		sides, err := SplitMarkers(data)
		if err != nil {
			f.Reason = "cannot read its conflict markers: " + err.Error()
			res.Files = append(res.Files, f)
			continue
		}
		base := sides.Base
		if !sides.BaseKnown && p == project.ManifestFile {
			// Without the base, the lines outside the markers are not a
			// manifest; every entry counts as added by its side.
			base = nil
		}
		out := MergeFile(p, base, sides.Ours, sides.Theirs)
		f.Clean, f.Reason, f.Renumbered = out.Clean, out.Reason, out.Renumbered
		if out.Clean {
			results[p] = out.Data
		}
		res.Files = append(res.Files, f)
	}

	if err := settle(proj, res, results); err != nil {
		return nil, err
	}

	var paths []string
	for p := range results {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	res.Written = paths
	if opts.DryRun || len(paths) == 0 {
		return res, nil
	}
	for _, p := range paths {
		if err := writeProjectFile(ctx, proj, p, results[p]); err != nil {
			return res, err
		}
	}

	// Stage what git had in conflict, as 'git add' would.
	var toStage []string
	for i := range res.Files {
		f := &res.Files[i]
		if f.From == FromIndex && f.Clean {
			toStage = append(toStage, f.Path)
		}
	}
	staged := map[string]bool{}
	if len(toStage) > 0 {
		switch {
		case idxErr != nil:
			res.StageHint = fmt.Sprintf("go-git cannot write this index (%v)", idxErr)
		case len(stages) > len(toStage):
			// go-git's index writer sorts entries unstably, which could
			// reorder the stages of the other conflicted paths.
			res.StageHint = "other paths are still in conflict"
		default:
			if err := stageFiles(proj, toStage, results, mode); err != nil {
				res.StageHint = err.Error()
			} else {
				for _, p := range toStage {
					staged[p] = true
				}
			}
		}
	}
	for i := range res.Files {
		res.Files[i].Staged = staged[res.Files[i].Path]
	}
	for _, p := range paths {
		if !staged[p] {
			res.Unstaged = append(res.Unstaged, p)
		}
	}
	return res, nil
}

// markedFiles lists devlearn's files on disk that git does not have in
// conflict but that hold conflict markers.
func markedFiles(proj *project.Project, stages map[string]*[4]*index.Entry) ([]string, error) {
	var candidates []string
	for _, r := range fileRules {
		matches, err := filepath.Glob(proj.Path(r.pattern))
		if err != nil {
			return nil, err
		}
		for _, m := range matches {
			rel, err := proj.Rel(m)
			if err != nil {
				return nil, err
			}
			if stages[rel] == nil && IsDevlearnFile(rel) && !slices.Contains(candidates, rel) {
				candidates = append(candidates, rel)
			}
		}
	}
	slices.Sort(candidates)
	var out []string
	for _, p := range candidates {
		fi, err := os.Lstat(proj.Path(p))
		if err != nil || !fi.Mode().IsRegular() {
			continue
		}
		data, err := os.ReadFile(proj.Path(p))
		if err != nil {
			return nil, err
		}
		if HasMarkers(data) {
			out = append(out, p)
		}
	}
	return out, nil
}

// settle moves the manifest's anchors to the merged knowledge files, when
// none of the three is still in conflict.
func settle(proj *project.Project, res *ResolveResult, results map[string][]byte) error {
	read := func(p string) ([]byte, bool, error) {
		if b, ok := results[p]; ok {
			return b, true, nil
		}
		for _, f := range res.Files {
			if f.Path == p && !f.Clean {
				return nil, false, nil
			}
		}
		b, err := os.ReadFile(proj.Path(p))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, true, nil
		}
		if err != nil {
			return nil, false, err
		}
		return b, !HasMarkers(b), nil
	}
	mdata, ok, err := read(project.ManifestFile)
	if err != nil || !ok || mdata == nil {
		return err
	}
	m, _, err := manifest.Parse(mdata, proj.Root)
	if err != nil {
		return nil // not readable: reconcile reports it
	}
	docs := map[string]*knowfile.Doc{}
	for _, k := range knowfile.Kinds() {
		data, ok, err := read(k.Path)
		if err != nil {
			return err
		}
		if !ok {
			return nil
		}
		if data != nil {
			docs[k.Path] = knowfile.Parse(k, data)
		}
	}
	res.Anchors = SettleAnchors(m, docs)
	if len(res.Anchors) > 0 {
		results[project.ManifestFile] = m.Bytes()
	}
	return nil
}

// writeProjectFile replaces a file of the worktree atomically, under the
// lock its appenders take.
func writeProjectFile(ctx context.Context, proj *project.Project, rel string, data []byte) error {
	if err := safePath(proj.Root, rel); err != nil {
		return err
	}
	unlock, err := jsonl.Lock(ctx, proj.LockPath(rel))
	if err != nil {
		return err
	}
	defer unlock()
	perm := os.FileMode(0o644)
	if fi, err := os.Stat(proj.Path(rel)); err == nil {
		perm = fi.Mode().Perm()
	}
	return jsonl.WriteFileAtomic(proj.Root, proj.Path(rel), data, perm)
}

func readIndex(gitDir string) (*index.Index, error) {
	b, err := os.ReadFile(filepath.Join(gitDir, "index"))
	if errors.Is(err, fs.ErrNotExist) {
		return &index.Index{Version: 2}, nil
	}
	if err != nil {
		return nil, err
	}
	idx := &index.Index{}
	if err := index.NewDecoder(bytes.NewReader(b)).Decode(idx); err != nil {
		return nil, err
	}
	return idx, nil
}

// stageFiles records the resolved files in the index at stage 0, under
// git's index lock, with their blobs written to the object store, as
// 'git add' does.
func stageFiles(proj *project.Project, paths []string, data map[string][]byte, modes map[string]filemode.FileMode) error {
	lock := filepath.Join(proj.GitDir, "index.lock")
	f, err := safefile.OpenFile(proj.GitDir, lock, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("another git process holds %s", lock)
	}
	f.Close()
	done := false
	defer func() {
		if !done {
			safefile.Remove(proj.GitDir, lock)
		}
	}()
	idx, err := readIndex(proj.GitDir)
	if err != nil {
		return err
	}
	r, err := openRepo(proj.Root)
	if err != nil {
		return err
	}
	drop := map[string]bool{}
	for _, p := range paths {
		drop[p] = true
	}
	kept := idx.Entries[:0]
	for _, e := range idx.Entries {
		if !drop[e.Name] {
			if e.Stage != 0 {
				return fmt.Errorf("%s is still in conflict", e.Name)
			}
			kept = append(kept, e)
		}
	}
	idx.Entries = kept
	for _, p := range paths {
		h, err := putBlob(r.Storer, data[p])
		if err != nil {
			return err
		}
		m := modes[p]
		if m != filemode.Executable {
			m = filemode.Regular
		}
		ie, err := indexEntry(p, proj.Path(p), entry{Hash: h, Mode: m})
		if err != nil {
			return err
		}
		idx.Entries = append(idx.Entries, ie)
	}
	// The cached trees describe the old entries; git rebuilds them.
	idx.Cache = nil
	idx.EndOfIndexEntry = nil
	if idx.Version < 2 || idx.Version > 4 {
		idx.Version = 2
	}
	w, err := safefile.OpenFile(proj.GitDir, lock, os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	err = index.NewEncoder(bw).Encode(idx)
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = w.Sync()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := safefile.Rename(proj.GitDir, lock, filepath.Join(proj.GitDir, "index")); err != nil {
		return err
	}
	done = true
	return nil
}
