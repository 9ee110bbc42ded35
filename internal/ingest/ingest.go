// Package ingest is the capture pipeline: it reads Claude Code transcripts,
// runs the extractors on them, keeps the per-clone history that makes
// requests and failures "repeated" across sessions, and records what it
// found: observation events and use counts in the log, [PROCESS_KNOWLEDGE]
// blocks as candidate entries through the one writer. The SessionEnd
// worker and `devlearn ingest` both run it.
//
// Ingesting is idempotent (the events rule, docs/architecture.md): every event's id derives from its
// session, record, extractor and observation, and an event the log already
// holds (even folded by compaction) is not appended again, so the same
// transcript ingested twice adds nothing; two sightings of one lesson in
// one session are one source, so they count once.
package ingest

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/devlearn/devlearn/internal/config"
	"github.com/devlearn/devlearn/internal/evolve"
	"github.com/devlearn/devlearn/internal/extract"
	"github.com/devlearn/devlearn/internal/identity"
	"github.com/devlearn/devlearn/internal/keep"
	"github.com/devlearn/devlearn/internal/knowledge"
	"github.com/devlearn/devlearn/internal/knowledge/entrystore"
	"github.com/devlearn/devlearn/internal/observe"
	"github.com/devlearn/devlearn/internal/project"
	"github.com/devlearn/devlearn/internal/redact"
	"github.com/devlearn/devlearn/internal/transcript"
)

// Source is one session to ingest.
type Source struct {
	// SessionID is the session the caller expects (the hook's, --session);
	// "" lets the transcript say.
	SessionID string
	// Files are the main transcript, then its subagents'.
	Files []string
	// Read reads another agent's session log (Files[0]) into the same
	// channels; nil reads Claude Code transcripts. A file that holds
	// several sessions (Gemini CLI's logs.json) is several sources, each
	// with its session's id and a Read of that session alone: one source
	// is one session.
	Read func(path string, opt transcript.Options) (*transcript.Channels, error)
}

// Session is one transcript as the extractors get it.
type Session struct {
	ID       string
	Channels *transcript.Channels
	Rules    extract.Result // what the rule-based extractors found
	// Existing are the observations already in the log, for an extractor
	// that should not propose them again.
	Existing []observe.Observation
}

// Extractor is an extractor beyond the rules (the LLM's): it gets each
// session and returns what it found.
type Extractor struct {
	Name    string
	Extract func(ctx context.Context, s *Session) (Found, error)
}

// Found is what an extractor beyond the rules found in a session: its
// observations, in the extractors' shape, and the records of the person's
// turns it read and found no lesson in (a model's), whose rules' readings
// give way (GiveWay).
type Found struct {
	Observations []extract.Observation
	Passed       []string
}

// GiveWay drops the rules' readings of the person's turns a model read
// and found no lesson in. The rules read a turn by its words and cannot
// tell a one-off request from a standing one; a model reading the turn
// with what the agent did around it can (on the genuine sessions, readers
// judged 0.93 of the model's observations useful against 0.66 of the
// rules'). A turn the model did state a lesson of keeps the rules' reading
// too: its words recur verbatim in later sessions, where a model's
// rewording does not, and that is how a lesson becomes one observation
// and reaches ready. What the person asked to keep stays whatever the
// model says: that is their decision, not a reading. Failures and their
// fixes, repeated requests and knowledge blocks are not readings of one
// turn, and stay.
func GiveWay(rules []extract.Observation, passed []string) []extract.Observation {
	if len(passed) == 0 {
		return rules
	}
	return slices.DeleteFunc(slices.Clone(rules), func(o extract.Observation) bool {
		return o.Extractor == extract.ExtractorCorrection && !o.Explicit && slices.Contains(passed, o.RecordUUID)
	})
}

// Pipeline ingests sessions into one project.
type Pipeline struct {
	Proj   *project.Project
	Config *config.Config
	Log    observe.Store
	Now    time.Time
	// Redact scrubs secrets from every text where it enters: the
	// transcript reader applies it to everything it reads (Transcript.Redact
	// when that is nil), and knowledge blocks and sightings are cleaned
	// with it. nil means redact.Text.
	Redact func(string) string
	// HistoryPath is the cross-session history; "" keeps none (requests
	// and failures then repeat only within one run).
	HistoryPath string
	// Writer writes candidate entries (the one writer); unused in a dry
	// run.
	Writer *evolve.Writer
	// DryRun finds everything and stores nothing.
	DryRun bool
	// Extractors run after the rules, on every session.
	Extractors []Extractor
	// Logf reports what goes wrong without stopping the run.
	Logf func(format string, args ...any)
	// Progress is told after each session.
	Progress func(done, total int)
	// Transcript tunes the reader.
	Transcript transcript.Options
	// OnSession, when set, is shown each session once it is read and the
	// rules have run (the classifier reads its first request there).
	OnSession func(s *Session)
	// Weight, when set, is what a session's sightings count toward the
	// thresholds (above 1 for a bug or feedback session); nil: 1.
	Weight func(session string) int
}

// Result is what a run found and recorded.
type Result struct {
	DryRun       bool             `json:"dry_run"`
	Sessions     []SessionReport  `json:"sessions"`
	Observations []Observed       `json:"observations"`
	Candidates   []SavedCandidate `json:"candidates"`
	// Kept are the lessons the person asked to keep: active entries at
	// once (Created false: an entry said it already).
	Kept []keep.Kept `json:"kept"`
	Uses []Usage     `json:"uses"`
	// Appended is the number of events written to the log (0 in a dry
	// run; what would be written is every New observation and use).
	Appended int      `json:"appended"`
	Problems []string `json:"problems"`
	// Log is the log with this run's events applied (in a dry run too,
	// though none is stored), so a caller can report from it without
	// reading and folding the file again.
	Log *observe.Log `json:"-"`
}

// maxUnreadable is how many unreadable lines a session's report names.
const maxUnreadable = 3

// SessionReport is one source's outcome.
type SessionReport struct {
	ID           string `json:"id"`
	File         string `json:"file"`
	Observations int    `json:"observations"` // found in it (rules and other extractors)
	Uses         int    `json:"uses"`
	Skipped      int    `json:"skipped_lines,omitempty"` // unreadable lines
	// Unreadable names the first of them, file and line and why.
	Unreadable []string `json:"unreadable,omitempty"`
	Error      string   `json:"error,omitempty"`
	Err        error    `json:"-"`
}

// Observed is an observation found, with its event id; New is false when
// the log already held that sighting.
type Observed struct {
	extract.Observation
	EID string `json:"eid"`
	New bool   `json:"new"`
}

// NewCount is how many observations are new.
func (r *Result) NewCount() int {
	n := 0
	for _, o := range r.Observations {
		if o.New {
			n++
		}
	}
	return n
}

func (p *Pipeline) redact() func(string) string {
	if p.Redact == nil {
		return redact.Text
	}
	return p.Redact
}

func (p *Pipeline) logf(format string, args ...any) {
	if p.Logf != nil {
		p.Logf(format, args...)
	}
}

// Run ingests the sources. A source that cannot be read is reported in its
// SessionReport and the others go on; the error is for the run as a whole
// (the log or the history cannot be read or written).
func (p *Pipeline) Run(ctx context.Context, sources []Source) (*Result, error) {
	log, err := p.Log.Load()
	if err != nil {
		return nil, err
	}
	res := &Result{DryRun: p.DryRun, Sessions: []SessionReport{}, Observations: []Observed{}, Candidates: []SavedCandidate{}, Kept: []keep.Kept{}, Uses: []Usage{}, Problems: []string{}, Log: log}
	problem := func(format string, args ...any) {
		msg := fmt.Sprintf(format, args...)
		res.Problems = append(res.Problems, msg)
		p.logf("%s", msg)
	}
	hist := &History{Version: historyVersion}
	if p.HistoryPath != "" {
		h, err := LoadHistory(p.HistoryPath)
		if err != nil {
			problem("%v", err)
		}
		hist = h
	}
	existing := log.Observations(p.Now, p.Config)
	artifacts := Artifacts(existing)
	opt := extract.Options{Redact: p.redact()}
	if p.Proj != nil {
		opt.Root = p.Proj.Root
	}

	var found []extract.Observation
	var usages []Usage
	var cands []extract.Candidate
	var reqs []request
	inBatch := map[string]bool{}
	var earlier foundSoFar
	var again []extract.Observation // turns that may say a lesson again: last, so that a sighting of any extractor comes first
	for i, src := range sources {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		rep := SessionReport{ID: src.SessionID}
		if len(src.Files) > 0 {
			rep.File = src.Files[0]
		}
		sess, err := p.read(src)
		if err != nil {
			rep.Err, rep.Error = err, err.Error()
			res.Sessions = append(res.Sessions, rep)
			p.logf("%v", err)
			p.progress(i+1, len(sources))
			continue
		}
		rep.ID = sess.ID
		rep.Skipped = len(sess.Channels.Problems)
		for _, pr := range sess.Channels.Problems[:min(len(sess.Channels.Problems), maxUnreadable)] {
			rep.Unreadable = append(rep.Unreadable, pr.Error())
		}
		if unread(sess.Channels) {
			// A format devlearn does not know reads as an empty session:
			// say so, or a person takes "nothing learned" for "nothing said".
			problem("%s: %s, and none of them is a record of a session devlearn reads (a message or a tool call): if Claude Code, Codex CLI, Gemini CLI, Cursor or Copilot CLI wrote it, its format is new to devlearn and nothing was learned from it", label(src, sess.ID), knowledge.Plural(sess.Channels.Stats.Lines, "line", "lines"))
		}
		inBatch[sess.ID] = true
		sess.Rules = extract.Session(sess.Channels, opt)
		sess.Existing = append(slices.Clip(existing), earlier.list...)
		if p.OnSession != nil {
			p.OnSession(sess)
		}
		var obs []extract.Observation
		var passed []string
		at := latest(sess.Channels, p.Now)
		var extracted []string
		for _, x := range p.Extractors {
			if hist.ExtractedAt(sess.ID, x.Name) == at.UTC().Format(time.RFC3339) {
				continue // read already, up to the same record: nothing new to ask
			}
			more, err := x.Extract(ctx, sess)
			if err != nil {
				problem("%s: %s extractor: %v", label(src, sess.ID), x.Name, err)
				continue
			}
			extracted = append(extracted, x.Name)
			passed = append(passed, more.Passed...)
			for _, o := range more.Observations {
				if o.Extractor == "" {
					o.Extractor = x.Name
				}
				obs = append(obs, o)
			}
		}
		hist.Put(sess.ID, at, p.Now, sess.Rules)
		for _, name := range extracted {
			hist.MarkExtracted(sess.ID, name)
		}
		hist.MarkPassed(sess.ID, passed)
		// The history holds every turn passed on, this run's and those of
		// runs that asked about the same records.
		obs = append(GiveWay(sess.Rules.Observations, hist.PassedTurns(sess.ID)), obs...)
		for j := range obs {
			if obs[j].SessionID == "" {
				obs[j].SessionID = sess.ID
			}
			inBatch[obs[j].SessionID] = true
		}
		rep.Observations = len(obs)
		found = append(found, obs...)
		earlier.add(obs)
		passedTurns := hist.PassedTurns(sess.ID)
		for _, o := range extract.SaidAgain(sess.Channels, obs) {
			if !slices.Contains(passedTurns, o.RecordUUID) {
				// A turn the model read and stated no lesson of is not one
				// said again either.
				again = append(again, o)
			}
		}
		for _, msg := range sess.Rules.Problems {
			problem("%s: %s", label(src, sess.ID), msg)
		}
		cands = append(cands, sess.Rules.Candidates...)
		reqs = append(reqs, keepRequests(sess.ID, sess.Channels)...)

		var uses []Use
		if src.Read == nil { // slash commands and skills in use are Claude Code's
			if uses, err = ScanUses(src.Files); err != nil {
				problem("%s: looking for artifacts in use: %v", label(src, sess.ID), err)
			}
		}
		matched := Match(uses, artifacts, sess.ID)
		rep.Uses = len(matched)
		usages = append(usages, matched...)
		res.Sessions = append(res.Sessions, rep)
		p.progress(i+1, len(sources))
	}
	// The cross-session extractors see every session of the history, this
	// run's included: a request made once in each of three batches is
	// repeated, a path not found in two is stale. Sightings of earlier
	// sessions that the log already holds are skipped below.
	found = append(found, extract.Across(hist.Results(), opt)...)
	found = append(found, again...)

	events := p.events(log, knownLessons(existing), saidLessons(existing), found, usages, inBatch, res, problem)

	// Candidate entries: written through the one writer, or, in a dry
	// run, only named.
	var store *entrystore.Store
	if !p.DryRun && p.Writer != nil {
		store = entrystore.Project(p.Proj, p.Writer)
	}
	written := sync.OnceValue(func() map[string]bool { return entriesWritten(p.Proj, problem) })
	for _, c := range cands {
		if store == nil && !p.DryRun {
			break // no writer: candidates are not this run's to save
		}
		if e, err := CandidateEntry(c.KnowledgeBlock, SourceTranscript); err == nil {
			rel, back, err := TakenBack(p.Proj, store, e, written)
			if err != nil {
				problem("session %s, record %s: knowledge block: %v", c.SessionID, c.RecordUUID, err)
				continue
			}
			if back {
				res.Candidates = append(res.Candidates, SavedCandidate{Summary: e.Summary, Path: rel, TakenBack: true, SessionID: c.SessionID})
				continue
			}
		}
		sc, err := SaveCandidate(ctx, store, c.KnowledgeBlock, SourceTranscript, "transcript of session "+c.SessionID+": a [PROCESS_KNOWLEDGE] block")
		if err != nil {
			problem("session %s, record %s: knowledge block: %v", c.SessionID, c.RecordUUID, err)
			continue
		}
		sc.SessionID = c.SessionID
		res.Candidates = append(res.Candidates, sc)
	}
	// What the person asked to keep: after the blocks, so that a draft
	// of the same lesson becomes theirs.
	if store != nil || p.DryRun {
		res.Kept = append(res.Kept, p.keepAll(ctx, store, reqs, problem)...)
	}
	if p.DryRun {
		return res, nil
	}
	if len(events) > 0 {
		if err := p.Log.Append(ctx, events...); err != nil {
			return res, err
		}
		res.Appended = len(events)
	}
	if p.HistoryPath != "" {
		hist.Prune(p.Now)
		if err := hist.Save(p.Proj.CommonDir, p.HistoryPath); err != nil {
			return res, err
		}
	}
	return res, nil
}

// events turns what was found into the log events not already there, and
// fills res with the observations and uses to report.
func (p *Pipeline) events(log *observe.Log, known, said *lessonIndex, found []extract.Observation, usages []Usage, inBatch map[string]bool, res *Result, problem func(string, ...any)) []*observe.Event {
	var events []*observe.Event
	seen := map[string]bool{}
	for _, o := range found {
		if o.Again {
			// A turn no rule kept counts only as a lesson the person
			// taught in another session, said again.
			id, typ, ok := said.said(o.Pattern)
			if !ok || log.SightedBy(id, o.SessionID) {
				continue
			}
			// Counted in the lesson's own words: the turn said more
			// around it, which is not the lesson (its quote is the
			// evidence).
			o.ID, o.Type, o.Pattern, o.Details = id, typ, said.pattern[id], ""
		}
		if o.ID == "" {
			o.ID = observe.ID(o.Type, o.Pattern)
		}
		// The same lesson in other words, or from another worktree or
		// branch, joins the observation it is (identity.Same); its event
		// keeps its own words.
		retaught := false
		if !log.Has(o.ID) {
			if same := known.same(o.Type, o.Pattern); len(same) > 0 {
				o.ID = same[0]
				if clause := known.pattern[same[0]]; identity.Opens(clause, o.Pattern) {
					// Said again first in a longer message: the lesson is
					// that clause, and the rest, another matter, stays
					// in the evidence only.
					o.Details = strings.ReplaceAll(o.Details, o.Pattern, clause)
					o.Pattern = clause
				}
			}
		}
		if log.Has(o.ID) && personSaid(o) && !log.SightedBy(o.ID, o.SessionID) {
			// The person had to say it again in another session: the
			// mistake recurs, and the sighting counts twice.
			retaught = true
		}
		// The cross-session extractors find every earlier session's
		// sightings again on every run; those the log holds are skipped
		// before the cost of cleaning (and redacting) them.
		if !inBatch[o.SessionID] {
			id := o.ID
			if id == "" {
				id = observe.ID(o.Type, o.Pattern)
			}
			if log.Sighted(id, o.SessionID, p.at(o.Timestamp)) {
				continue
			}
		}
		q := o.QualityOK
		s := observe.Sighting{ID: o.ID, Type: o.Type, Pattern: o.Pattern, Details: o.Details, Evidence: o.Evidence, QualityOK: &q, Record: o.RecordUUID, Extractor: o.Extractor}
		if err := s.Clean(log, p.redact()); err != nil {
			problem("session %s, record %s: %s observation %q: %v", o.SessionID, o.RecordUUID, o.Extractor, o.Pattern, err)
			continue
		}
		at := p.at(o.Timestamp)
		e := observe.ObserveEvent(s, o.SessionID, at)
		if p.Weight != nil {
			if w := p.Weight(o.SessionID); w > 1 {
				e.Weight = w
			}
		}
		if retaught && e.Weight < RetaughtWeight {
			e.Weight = RetaughtWeight
		}
		isNew := !seen[e.EID] && !log.Sighted(s.ID, o.SessionID, at)
		if isNew {
			seen[e.EID] = true
			if err := log.Apply(e); err != nil {
				problem("%v", err)
				continue
			}
			events = append(events, e)
			known.add(s.ID, s.Type, s.Pattern)
			if personSaid(o) && !o.Again {
				said.add(s.ID, s.Type, s.Pattern)
			}
		}
		if isNew && retaught {
			if pe := p.promoteRetaught(log, s.ID, o.SessionID, at); pe != nil {
				if err := log.Apply(pe); err != nil {
					problem("%v", err)
				} else {
					events = append(events, pe)
				}
			}
		}
		if isNew || inBatch[o.SessionID] {
			o.ID, o.Pattern, o.Details, o.Evidence = s.ID, s.Pattern, s.Details, s.Evidence
			res.Observations = append(res.Observations, Observed{Observation: o, EID: e.EID, New: isNew})
		}
	}
	for _, u := range usages {
		eid := UseEventID(u.SessionID, u.ID)
		if seen[eid] || log.Counted(u.ID, Counter, eid) {
			continue
		}
		seen[eid] = true
		e := UseEvent(u, p.at(u.Timestamp))
		if err := log.Apply(e); err != nil {
			problem("%v", err)
			continue
		}
		events = append(events, e)
		res.Uses = append(res.Uses, u)
	}
	return events
}

// foundSoFar is what a run's sessions have found so far, as the sessions
// after them in the run are shown it among the existing observations: a
// backlog read in one run is then read as the sessions read one by one
// would be, and a model re-sights a lesson of an earlier session by its id
// rather than proposing it anew.
type foundSoFar struct {
	list []observe.Observation
	ids  map[string]bool
}

func (f *foundSoFar) add(found []extract.Observation) {
	for _, o := range found {
		if o.Type == "" || o.Pattern == "" {
			continue
		}
		id := o.ID
		if id == "" {
			id = observe.ID(o.Type, o.Pattern)
		}
		if f.ids[id] {
			continue
		}
		if f.ids == nil {
			f.ids = map[string]bool{}
		}
		f.ids[id] = true
		f.list = append(f.list, observe.Observation{ID: id, Type: o.Type, Pattern: o.Pattern, Count: 1, Status: observe.Observing})
	}
}

// personSaid reports a sighting of the person's own words, a lesson they
// can teach again: what they said (read by the rules or quoted by a
// model), or a request they gave. A failure and its fix, a knowledge
// block and a stale path are what the agent met or wrote, and recur by
// the thresholds alone. A sighting not specific enough to be a lesson
// (QualityOK false: "continue" said in three sessions) teaches nothing by
// being said again.
func personSaid(o extract.Observation) bool {
	return o.QualityOK && quotesPerson(o.Evidence)
}

// quotesPerson reports evidence that quotes the person's own words.
func quotesPerson(evidence []string) bool {
	return slices.ContainsFunc(evidence, func(e string) bool { return strings.HasPrefix(e, extract.PersonQuote) })
}

// RetaughtWeight is what a sighting counts toward the thresholds when the
// person teaches, in another session, a lesson the log already holds: the
// mistake came back, which is what promotion waits for.
const RetaughtWeight = 2

// promoteRetaught is the event that makes a lesson ready when the person
// taught it again in another session: they said it twice, which is their
// decision that it matters, whatever the thresholds (as `learn --review`
// promotes). A lesson already ready, rendered, or turned down is left as
// it is: a "no" sticks. Its id derives from the lesson and the session, so
// ingesting again adds nothing.
func (p *Pipeline) promoteRetaught(log *observe.Log, id, session string, at time.Time) *observe.Event {
	o, ok := log.Observation(id, p.Now, p.Config)
	if !ok || o.Status != observe.Observing {
		return nil
	}
	e := observe.NewEvent(observe.OpPromote, id, at, session, func(e *observe.Event) {
		e.Reason = "taught again in another session"
		e.Seq = o.NextSeq()
	})
	e.EID = observe.StableID("retaught\x00" + id + "\x00" + session)
	return e
}

// read reads a source's transcripts.
func (p *Pipeline) read(src Source) (*Session, error) {
	if len(src.Files) == 0 {
		return nil, fmt.Errorf("session %s: %w", src.SessionID, transcript.ErrNoTranscript)
	}
	opt := p.Transcript
	if opt.Redact == nil {
		opt.Redact = p.redact()
	}
	var ch *transcript.Channels
	var err error
	if src.Read != nil {
		ch, err = src.Read(src.Files[0], opt)
	} else {
		ch, err = transcript.ReadFiles(src.Files, opt)
	}
	if err != nil {
		return nil, err
	}
	id := ch.SessionID
	if id == "" {
		id = src.SessionID
	}
	if id == "" {
		id = strings.TrimSuffix(filepath.Base(src.Files[0]), ".jsonl")
	}
	return &Session{ID: id, Channels: ch}, nil
}

// at is when a sighting happened: its record's time, so that a transcript
// ingested days later (or a backlog ingested at once) spreads its
// sightings over the days they were made. A record without a readable
// time, or from the future, counts as now.
func (p *Pipeline) at(ts string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, ts)
	if err != nil || t.After(p.Now) {
		return p.Now
	}
	return t.UTC().Truncate(time.Second)
}

func (p *Pipeline) progress(done, total int) {
	if p.Progress != nil {
		p.Progress(done, total)
	}
}

// latest is the time of the session's last message, or now.
func latest(ch *transcript.Channels, now time.Time) time.Time {
	var last time.Time
	see := func(ts string) {
		if t, err := time.Parse(time.RFC3339Nano, ts); err == nil && t.After(last) && !t.After(now) {
			last = t
		}
	}
	for _, s := range ch.UserSignals {
		see(s.Timestamp)
	}
	for _, d := range ch.DialogPairs {
		see(d.Timestamp)
	}
	if last.IsZero() {
		return now
	}
	return last
}

// unread reports a file none of whose lines was read as a message, a
// summary or a tool call, some of them not even a record of Claude Code's
// (a transcript of only Claude Code's own bookkeeping records is a session
// in which nothing was said), or not JSON at all (a conversation exported
// as Markdown), each skipped line reported already.
func unread(ch *transcript.Channels) bool {
	st := ch.Stats
	return (st.Untyped > 0 || len(ch.Problems) > 0) && st.User == 0 && st.Assistant == 0 && st.System == 0 && st.Summaries == 0 && len(ch.Tools) == 0 && len(ch.UserSignals) == 0
}

func label(src Source, id string) string {
	if len(src.Files) > 0 {
		return src.Files[0]
	}
	return "session " + id
}

// entriesWritten are the entry files devlearn ever wrote in p, from its
// audit log: one of them gone now was taken back by a person.
func entriesWritten(p *project.Project, problem func(string, ...any)) map[string]bool {
	if p == nil {
		return nil
	}
	entries, _, err := evolve.ReadLog(p)
	if err != nil {
		problem("reading the audit log, to leave out the drafts a person took back: %v", err)
	}
	out := map[string]bool{}
	for _, e := range entries {
		for _, f := range e.Files {
			if f.After != "" && strings.HasPrefix(f.Path, project.EntriesDir+"/") {
				out[f.Path] = true
			}
		}
	}
	return out
}
