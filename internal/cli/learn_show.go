package cli

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/exitcode"
	"github.com/devlearn/devlearn/internal/knowfile"
	"github.com/devlearn/devlearn/internal/lesson"
	"github.com/devlearn/devlearn/internal/manifest"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/render"
)

type showResult struct {
	Observation *observe.Observation `json:"observation"`
	Sources     []showSource         `json:"sources"`
	History     []observe.Step       `json:"history"`
	Artifact    *manifest.Entry      `json:"artifact"`
	Audit       []evolve.Entry       `json:"audit"`
}

type showSource struct {
	Source string `json:"source"`
	Last   string `json:"last_seen"`
}

var anchorArg = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?i)(` + lesson.Anchors() + `)-0*(\d{1,6})$`) })

func runLearnShow(env *Env, opts *learnOptions) error {
	w, err := env.workspace()
	if err != nil {
		return err
	}
	man, _, err := manifest.LoadProject(w.proj)
	if err != nil {
		return err
	}
	id, err := resolveShowArg(env, w.proj, man, opts.show)
	if err != nil {
		return err
	}
	log, err := w.loadLog(env)
	if err != nil {
		return err
	}
	res := showResult{Sources: []showSource{}, Audit: []evolve.Entry{}}
	o, ok := log.Observation(id, w.now, w.cfg.Config)
	if !ok {
		return exitcode.WithHint(fmt.Errorf("%s is not in %s", id, project.LogFile), "see 'devlearn learn --list' for the observations there")
	}
	res.Observation = &o
	if res.History, err = observe.History(w.log.Path, id, w.cfg.Config); err != nil {
		return err
	}
	last := map[string]string{}
	for _, s := range res.History {
		if s.Event.Op == observe.OpObserve || s.Event.Op == "" {
			src := s.Event.Src
			if src == "" {
				src = "devflow"
			}
			at := s.Event.At
			if at == "" {
				at = s.Event.LastSeen
			}
			if _, seen := last[src]; !seen {
				res.Sources = append(res.Sources, showSource{Source: src})
			}
			last[src] = at
		}
	}
	for i := range res.Sources {
		res.Sources[i].Last = last[res.Sources[i].Source]
	}
	res.Artifact = man.Get(id)
	entries, _, err := evolve.ReadLog(w.proj)
	if err != nil {
		return err
	}
	for _, e := range entries {
		hit := slices.Contains(e.Reason.Observations, id)
		for _, f := range e.Files {
			hit = hit || (res.Artifact != nil && f.Path == res.Artifact.Path && res.Artifact.AnchorID == "")
		}
		if hit {
			res.Audit = append(res.Audit, e)
		}
	}
	if opts.json {
		return printJSON(env.Out, res)
	}
	printShow(env, &res)
	return nil
}

// resolveShowArg turns what the person gave (an id, an artifact path, or
// an ADR/PF anchor) into an observation id.
func resolveShowArg(env *Env, p *project.Project, man *manifest.Manifest, arg string) (string, error) {
	if strings.HasPrefix(arg, "obs_") {
		return arg, nil
	}
	if m := anchorArg().FindStringSubmatch(arg); m != nil {
		// ADR-1, adr-001 and ADR-001 name the same section.
		t, _ := lesson.ByPrefix(strings.ToUpper(m[1]))
		kind := knowfile.Kind(t.Central)
		n, _ := strconv.Atoi(m[2])
		arg = kind.Anchor(n)
		for _, e := range man.Entries {
			if e.AnchorID == arg {
				return e.ObservationID, nil
			}
		}
		rel := kind.Path
		data, _ := os.ReadFile(p.Path(rel))
		if s := knowfile.Parse(kind, data).ByAnchor(arg); s != nil {
			if id := s.Source(); id != "" {
				return id, nil
			}
			return "", fmt.Errorf("%s in %s has no Source line: it was written by a person, not learned", arg, rel)
		}
		return "", fmt.Errorf("%s is not in %s", arg, rel)
	}
	abs := arg
	if !filepath.IsAbs(abs) {
		abs = filepath.Join(env.Dir, arg)
	}
	rel, err := p.Rel(abs)
	if err != nil || strings.HasPrefix(rel, "..") {
		return "", exitcode.Usagef("%s is neither an observation id (obs_…), an ADR/PF anchor, nor a path in this repository", arg)
	}
	for _, e := range man.Entries {
		if e.Path == rel && e.AnchorID == "" {
			return e.ObservationID, nil
		}
	}
	data, err := os.ReadFile(abs)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%s: no such file, and no artifact of that path in the manifest", rel)
		}
		return "", err
	}
	if id := render.SourceOf(data); id != "" {
		return id, nil
	}
	for _, kind := range knowfile.Kinds() {
		if rel != kind.Path {
			continue
		}
		var anchors []string
		for _, s := range knowfile.Parse(kind, data).Sections {
			if s.Anchor != "" {
				anchors = append(anchors, s.Anchor)
			}
		}
		if len(anchors) == 0 {
			return "", fmt.Errorf("%s holds no %s yet", rel, kind.Nouns)
		}
		list := strings.Join(anchors, ", ")
		if len(anchors) > 4 {
			list = fmt.Sprintf("%s … %s, %d in all", strings.Join(anchors[:3], ", "), anchors[len(anchors)-1], len(anchors))
		}
		return "", exitcode.Usagef("%s is a file of %s (%s): name one, e.g. 'devlearn learn --show %s'", rel, kind.Nouns, list, anchors[0])
	}
	return "", fmt.Errorf("%s carries no observation id: it is not an artifact devlearn made", rel)
}

func printShow(env *Env, r *showResult) {
	out := env.Out
	o := r.Observation
	fmt.Fprintf(out, "%s  %s  %s  confidence %.2f  count %d\n", o.ID, o.Type, statusLabel(*o), o.Confidence, o.Count)
	fmt.Fprintf(out, "Pattern: %s\n", o.Pattern)
	if o.Details != "" {
		fmt.Fprintf(out, "Details: %s\n", strings.ReplaceAll(o.Details, "\n", "\n         "))
	}
	if len(o.Why) > 0 {
		fmt.Fprintf(out, "Not ready because: %s\n", strings.Join(o.Why, "; "))
	}
	if o.Stale != "" {
		fmt.Fprintf(out, "Stale: %s\n", o.Stale)
	}
	var srcs []string
	for _, s := range r.Sources {
		srcs = append(srcs, fmt.Sprintf("%s (%s)", s.Source, day10(s.Last)))
	}
	fmt.Fprintf(out, "Sources (%d): %s\n", len(r.Sources), strings.Join(srcs, ", "))
	if len(o.Counters) > 0 {
		var cs []string
		for _, c := range slices.Sorted(maps.Keys(o.Counters)) {
			cs = append(cs, fmt.Sprintf("%s %d", c, o.Counters[c]))
		}
		fmt.Fprintf(out, "Counters: %s\n", strings.Join(cs, ", "))
	}
	if len(o.Evidence) > 0 {
		fmt.Fprintln(out, "Evidence:")
		for _, e := range o.Evidence {
			fmt.Fprintf(out, "  - %s\n", e)
		}
	}
	fmt.Fprintln(out, "History:")
	t := newTable(out)
	t.row("  LINE", "AT", "EVENT", "SOURCE", "CONF", "STATUS", "NOTE")
	for _, s := range r.History {
		e := s.Event
		op, at := e.Op, e.At
		if op == "" {
			op, at = "devflow", e.LastSeen
		}
		note := e.Reason
		switch e.Op {
		case observe.OpFlag:
			state := "on"
			if e.On != nil && !*e.On {
				state = "off"
			}
			note = strings.TrimSpace(e.Flag + " " + state + " " + e.Reason)
		case observe.OpPenalize:
			note = strings.TrimSpace(fmt.Sprintf("× %g %s", e.Factor, e.Reason))
		case observe.OpIntent, observe.OpCreated:
			note = strings.TrimSpace(e.Path + " " + e.Anchor)
		}
		t.row(fmt.Sprintf("  %d", s.Line), at, op, e.Src, fmt.Sprintf("%.2f", s.Confidence), s.Status, note)
	}
	t.flush()
	if a := r.Artifact; a != nil {
		where := a.Path
		if a.AnchorID != "" {
			where += " " + a.AnchorID
		}
		fmt.Fprintf(out, "Artifact: %s (rendered %s, hash %s)\n", where, a.RenderedAt, shortHash(a.ContentHash))
	} else if o.Artifact != "" {
		fmt.Fprintf(out, "Artifact: %s (not in the manifest)\n", o.Artifact)
	} else {
		fmt.Fprintln(out, "Artifact: none")
	}
	if len(r.Audit) > 0 {
		fmt.Fprintln(out, "Audit:")
		t := newTable(out)
		for _, e := range r.Audit {
			var files []string
			for _, f := range e.Files {
				files = append(files, f.Path)
			}
			t.row("  "+e.ID, e.Time, e.Trigger.Command, e.Reason.Text, strings.Join(files, ", "))
		}
		t.flush()
	}
}

func shortHash(h string) string {
	if len(h) > 12 {
		return h[:12]
	}
	return h
}
