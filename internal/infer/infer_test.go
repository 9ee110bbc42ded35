package infer

import (
	"reflect"
	"testing"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// The triads design's priority decision tree, row by row.
func TestPriorityFollowsTheSeed(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Lesson
		want string
	}{
		{"a correction seen in a second session", Lesson{Origin: Correction, Context: "use tabs", Sessions: 2}, "CRITICAL"},
		{"the agent's lesson, seen again", Lesson{Origin: Explicit, Context: "use tabs", Sessions: 3}, "CRITICAL"},
		{"the person calls it critical", Lesson{Origin: Correction, Context: "this is critical: keep the lock file", Sessions: 1}, "CRITICAL"},
		{"a correction about a release", Lesson{Origin: Correction, Context: "you forgot marketplace.json in the release", Sessions: 1}, "CRITICAL"},
		{"a correction about tests", Lesson{Origin: Correction, Context: "run the tests before you commit", Sessions: 1}, "HIGH"},
		{"a correction about style", Lesson{Origin: Correction, Context: "stop adding comments", Sessions: 1}, "MEDIUM"},
		{"the agent's lesson about a deploy", Lesson{Origin: Explicit, Context: "deploy only from main", Sessions: 1}, "HIGH"},
		{"the agent's lesson otherwise", Lesson{Origin: Explicit, Context: "run the tests first", Sessions: 1}, "MEDIUM"},
		{"a correction in Chinese about production", Lesson{Origin: Correction, Context: "不要直接部署到生产环境", Sessions: 1}, "CRITICAL"},
		{"a correction in German about errors", Lesson{Origin: Correction, Context: "Fehler immer mit Kontext zurückgeben", Sessions: 1}, "HIGH"},
		{"a correction in Japanese, very important", Lesson{Origin: Correction, Context: "これは非常に重要です：main に直接プッシュしないで", Sessions: 1}, "CRITICAL"},
		{"a correction in Russian about production", Lesson{Origin: Correction, Context: "никогда не деплой на прод в пятницу", Sessions: 1}, "CRITICAL"},
		{"a correction in Russian about tests", Lesson{Origin: Correction, Context: "тесты гоняем только через make test", Sessions: 1}, "HIGH"},
		{"a correction in Korean about production", Lesson{Origin: Correction, Context: "운영 서버에 직접 배포하지 마", Sessions: 1}, "CRITICAL"},
		{"a correction in Korean about errors", Lesson{Origin: Correction, Context: "에러 메시지는 영어로 남겨", Sessions: 1}, "HIGH"},
	} {
		if got := Priority(tc.l); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

func TestKindFollowsTheSeed(t *testing.T) {
	for lesson, want := range map[string]string{
		"You also need to update marketplace.json":        "checklist",
		"Always run the formatter before committing":      "pattern",
		"Be careful: the migration might drop the column": "warning",
		"Every public function must have an example":      "requirement",
		"Use uv, not pip":                                    "pattern",
		"Bump the version and tag the release":               "pattern",
		"Don't forget CHANGELOG.md when bumping the version": "checklist",
	} {
		if got := Kind(lesson); got != want {
			t.Errorf("%q: %s, want %s", lesson, got, want)
		}
	}
}

// Triggers name what the lesson is about: the files, commands and tools it
// names, generalised.
func TestTriggersNameWhatTheLessonIsAbout(t *testing.T) {
	for _, tc := range []struct {
		lesson string
		want   knowledge.Triggers
	}{
		{"Never run git push yourself", knowledge.Triggers{Actions: []string{"git push"}, Tools: []string{"Bash"}}},
		{"Never run git yourself", knowledge.Triggers{Actions: []string{"git"}, Tools: []string{"Bash"}}},
		{"Use uv, not pip, in this repository", knowledge.Triggers{Actions: []string{"uv", "pip"}, Tools: []string{"Bash"}}},
		{"Run `make fmt` before committing", knowledge.Triggers{Actions: []string{"make fmt"}, Tools: []string{"Bash"}}},
		{"Go ahead and make sure it works", knowledge.Triggers{}},
		{"Update marketplace.json whenever plugin.json changes", knowledge.Triggers{
			Files: []string{"**/marketplace.json", "**/plugin.json"}, Tools: []string{"Write", "Edit", "MultiEdit"}}},
		{"Don't touch src/version.go by hand", knowledge.Triggers{Files: []string{"**/*version*.go"}, Tools: []string{"Write", "Edit", "MultiEdit"}}},
		{"Nothing under internal/gen/ is edited by hand", knowledge.Triggers{Files: []string{"internal/gen/**"}, Tools: []string{"Write", "Edit", "MultiEdit"}}},
		{"不要自己运行 git push", knowledge.Triggers{Actions: []string{"git push"}, Tools: []string{"Bash"}}},
		{"deploy only after the release is tagged", knowledge.Triggers{Actions: []string{"deploy", "release"}}},
		{"Use the Edit tool, not sed, on Node.js files", knowledge.Triggers{Tools: []string{"Edit"}}},
	} {
		if got := Triggers(tc.lesson); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.lesson, got, tc.want)
		}
	}
}

func TestGeneralizePath(t *testing.T) {
	for in, want := range map[string]string{
		"/path/to/plugin.json":      "**/plugin.json",
		"pyproject.toml":            "**/pyproject.toml",
		"/path/to/src/version_2.py": "**/*version*.py",
		"VERSION":                   "**/*version*",
		"internal/hook/":            "internal/hook/**",
		"/home/me/repo/docs/":       "**/docs/**",
		"**/*.sql":                  "**/*.sql",
		// A name most folders hold keeps its folder.
		".agent/README.md":           "**/.agent/README.md",
		"/home/me/repo/src/index.ts": "**/src/index.ts",
		"README.md":                  "**/README.md",
		"pkg/__init__.py":            "**/pkg/__init__.py",
		"cmd/tool/main.go":           "**/tool/main.go",
	} {
		if got := GeneralizePath(in); got != want {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}
