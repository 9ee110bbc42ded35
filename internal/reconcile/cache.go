package reconcile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"github.com/devlearn/devlearn/internal/config"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/devlearn/devlearn/internal/jsonl"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/safefile"
	"github.com/devlearn/devlearn/internal/stamp"
)

// The quiet-run cache. Reconcile runs at every session start, and most of
// the time nobody touched anything. When a full run finds nothing to
// record, it keeps the stat fingerprint (size, mtime, inode, existence) of
// every file its answer depends on: the log, the manifest, the knowledge
// files, the project's config, each artifact, the artifact folders (a new file changes their
// mtime), every code reference it checked and the git index and config.
// If none of them changed, the next run's answer is the same, and it is
// given without reading a single file: what git does with its index.
const cacheVersion = "devlearn-reconcile-cache 2"

// cacheMaxAge bounds what time alone could change (a ready observation
// fading below its threshold): past it, a full run happens anyway.
const cacheMaxAge = 6 * time.Hour

func cachePath(p *project.Project) string {
	return p.StatePath("cache", p.WorktreeID(), "reconcile")
}

// watched lists the files a quiet run's answer depends on.
func (u *run) watched() []string {
	set := map[string]bool{
		project.LogFile: true, project.ManifestFile: true, project.DecisionsFile: true, project.PitfallsFile: true,
		project.CommandsDir: true, project.SkillsDir: true,
	}
	for _, e := range u.man.Entries {
		set[e.Path] = true
		if dir := filepath.ToSlash(filepath.Dir(e.Path)); strings.HasPrefix(dir, project.SkillsDir+"/") {
			set[dir] = true
		}
	}
	for ref := range u.refsChecked {
		set[ref] = true
	}
	out := make([]string, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	return out
}

// gitFiles are outside the working tree but change the answer: the index
// (tracked names, skip-worktree bits) and the config (sparse checkout).
func gitFiles(p *project.Project) []string {
	return []string{filepath.Join(p.GitDir, "index"), filepath.Join(p.CommonDir, "config"), filepath.Join(p.GitDir, "config.worktree")}
}

// saveCache records a quiet run. Errors are ignored: the cache only ever
// saves time.
func (u *run) saveCache() {
	p := u.r.Proj
	written := time.Now()
	var b bytes.Buffer
	res, _ := json.Marshal(u.res)
	fmt.Fprintf(&b, "%s %d %s\n%s\n", cacheVersion, u.r.Opts.Now.Unix(), configKey(u.r.Opts.Config), res)
	fresh := false
	write := func(abs, name string) {
		f := stamp.OfLink(abs)
		fresh = fresh || f.Racy(written)
		ex := 0
		if f.Exists {
			ex = 1
		}
		fmt.Fprintf(&b, "%d %d %d %d %s\n", f.Size, f.Mtime, f.Ino, ex, name)
	}
	for _, rel := range u.watched() {
		write(p.Path(rel), rel)
	}
	for _, abs := range gitFiles(p) {
		write(abs, "!"+abs)
	}
	if fresh {
		return
	}
	_ = safefile.MkdirAll(p.CommonDir, filepath.Dir(cachePath(p)), 0o755)
	_ = jsonl.WriteFileAtomic(p.CommonDir, cachePath(p), b.Bytes(), 0o644)
}

// configKey names the config in force, project and global files alike:
// its thresholds decide orphan adoption and staleness, so an answer given
// under other thresholds is not this config's.
func configKey(cfg *config.Config) string {
	data, _ := json.Marshal(cfg)
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:8])
}

// cached returns the answer of the last quiet run if nothing it depended
// on changed since.
func cached(p *project.Project, now time.Time, cfg *config.Config) *Result {
	f, err := os.Open(cachePath(p))
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	if !sc.Scan() {
		return nil
	}
	head := strings.Fields(sc.Text())
	if len(head) != 4 || head[0]+" "+head[1] != cacheVersion || head[3] != configKey(cfg) {
		return nil
	}
	at, err := strconv.ParseInt(head[2], 10, 64)
	if err != nil || now.Sub(time.Unix(at, 0)) > cacheMaxAge || now.Before(time.Unix(at, 0)) {
		return nil
	}
	if !sc.Scan() {
		return nil
	}
	res := &Result{}
	if err := json.Unmarshal(sc.Bytes(), res); err != nil {
		return nil
	}
	for sc.Scan() {
		fields := bytes.SplitN(sc.Bytes(), []byte(" "), 5)
		if len(fields) != 5 {
			return nil
		}
		name := string(fields[4])
		abs := p.Path(name)
		if strings.HasPrefix(name, "!") {
			abs = name[1:]
		}
		cur := stamp.OfLink(abs)
		if strconv.FormatInt(cur.Size, 10) != string(fields[0]) || strconv.FormatInt(cur.Mtime, 10) != string(fields[1]) ||
			strconv.FormatUint(cur.Ino, 10) != string(fields[2]) || (cur.Exists != (string(fields[3]) == "1")) {
			return nil
		}
	}
	if sc.Err() != nil {
		return nil
	}
	return res
}
