package extract

import (
	"regexp"
	"sync"
)

// lazyRegexp is a pattern compiled on first use. Every devlearn process
// links this package, hooks included, and compiling its thirty patterns at
// start cost each of them about 0.75 ms, although only the worker and
// `ingest` ever extract.
type lazyRegexp struct {
	once sync.Once
	src  string
	re   *regexp.Regexp
}

// patterns lists every lazy pattern, so a test can compile them all.
var patterns []*lazyRegexp

func lazy(src string) *lazyRegexp {
	l := &lazyRegexp{src: src}
	patterns = append(patterns, l)
	return l
}

func (l *lazyRegexp) get() *regexp.Regexp {
	l.once.Do(func() { l.re = regexp.MustCompile(l.src) })
	return l.re
}

func (l *lazyRegexp) MatchString(s string) bool      { return l.get().MatchString(s) }
func (l *lazyRegexp) FindStringIndex(s string) []int { return l.get().FindStringIndex(s) }
func (l *lazyRegexp) FindStringSubmatchIndex(s string) []int {
	return l.get().FindStringSubmatchIndex(s)
}
func (l *lazyRegexp) SubexpIndex(name string) int { return l.get().SubexpIndex(name) }
func (l *lazyRegexp) ReplaceAllString(s, repl string) string {
	return l.get().ReplaceAllString(s, repl)
}
func (l *lazyRegexp) ReplaceAllStringFunc(s string, repl func(string) string) string {
	return l.get().ReplaceAllStringFunc(s, repl)
}
