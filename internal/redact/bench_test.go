package redact

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// observation is the size and kind of string devlearn stores most often.
const observation = "When bumping the version, update pyproject.toml, plugin.json and the " +
	"changelog together; the release script reads the token from GITHUB_TOKEN and " +
	"fails if the API key is missing."

func TestMain(m *testing.M) {
	// BenchmarkProcessStart runs this binary as a child to time a process
	// that redacts once, the way a hook does.
	switch os.Getenv("REDACT_CHILD") {
	case "bare":
		os.Exit(0)
	case "text":
		if Text(observation) != observation {
			os.Exit(3)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func transcript(b *testing.B) string {
	data, err := os.ReadFile("../../testdata/redact/transcript.jsonl")
	if err != nil {
		b.Fatal(err)
	}
	return string(data)
}

// dense is the corpus' secret lines, one after another: a text that is
// mostly secrets.
func dense(b *testing.B) string {
	var lines []string
	for _, c := range loadCorpus(b) {
		if c.secret {
			lines = append(lines, c.text)
		}
	}
	return strings.Join(lines, "\n")
}

// BenchmarkText is the steady state: rules already compiled.
func BenchmarkText(b *testing.B) {
	for _, c := range []struct {
		name string
		text func(*testing.B) string
	}{
		{"observation", func(*testing.B) string { return observation }},
		{"transcript", transcript},
		{"dense", dense},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := c.text(b)
			Text(s)
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				Text(s)
			}
		})
	}
}

// BenchmarkShapes is the pass for card numbers, IBANs and bare AWS keys
// alone, which every text pays (no keyword can skip it): compare it with
// BenchmarkText on the same text.
func BenchmarkShapes(b *testing.B) {
	for _, c := range []struct {
		name string
		text func(*testing.B) string
	}{
		{"observation", func(*testing.B) string { return observation }},
		{"transcript", transcript},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := c.text(b)
			b.SetBytes(int64(len(s)))
			b.ReportAllocs()
			for b.Loop() {
				findShapes(s, nil)
			}
		})
	}
}

// BenchmarkFirstCall is what the first Text of a process costs: a new
// redactor (keyword index) and compiling the rules the text triggers.
func BenchmarkFirstCall(b *testing.B) {
	for _, c := range []struct {
		name string
		text func(*testing.B) string
	}{
		{"observation", func(*testing.B) string { return observation }},
		{"dense", dense},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := c.text(b)
			b.ReportAllocs()
			for b.Loop() {
				r, err := New(Extra{})
				if err != nil {
					b.Fatal(err)
				}
				r.Text(s)
			}
		})
	}
}

// BenchmarkProcessStart times a whole process, as each Claude Code hook
// is one: "bare" starts and exits; "text" also redacts one observation.
// The difference is the first-call cost in a fresh process. The package's
// init is reported from GODEBUG=inittrace; in this test binary it also
// covers the test files' variables (the -update flag), so it bounds the
// production figure from above.
func BenchmarkProcessStart(b *testing.B) {
	initLine := regexp.MustCompile(`init github\.com/devlearn/devlearn/internal/redact @[0-9.]+ ms, ([0-9.]+) ms clock, ([0-9]+) bytes, ([0-9]+) allocs`)
	for _, mode := range []string{"bare", "text"} {
		b.Run(mode, func(b *testing.B) {
			var clock float64
			var allocs int
			for b.Loop() {
				cmd := exec.Command(os.Args[0])
				cmd.Env = append(os.Environ(), "REDACT_CHILD="+mode, "GODEBUG=inittrace=1")
				var stderr bytes.Buffer
				cmd.Stderr = &stderr
				if err := cmd.Run(); err != nil {
					b.Fatalf("child: %v\n%s", err, stderr.String())
				}
				m := initLine.FindStringSubmatch(stderr.String())
				if m == nil {
					b.Fatalf("no init line for the package in:\n%s", stderr.String())
				}
				ms, _ := strconv.ParseFloat(m[1], 64)
				n, _ := strconv.Atoi(m[3])
				clock += ms
				allocs += n
			}
			b.ReportMetric(1000*clock/float64(b.N), "init-µs/op")
			b.ReportMetric(float64(allocs)/float64(b.N), "init-allocs/op")
		})
	}
}

func ExampleText() {
	fmt.Println(Text("DATABASE_URL=postgres://app:Xk9pL2mQ7vR4@db.internal:5432/app"))
	fmt.Println(Text("export GITHUB_TOKEN=" + testPAT))
	fmt.Println(Text("password: <your password here>"))
	// Output:
	// DATABASE_URL=postgres://app:[REDACTED:url-password]@db.internal:5432/app
	// export GITHUB_TOKEN=[REDACTED:github-pat]
	// password: <your password here>
}
