package extract

import (
	"slices"
	"testing"
)

// A rerun changed beyond what the command tells is a lesson when the
// agent said, just before it, what it made of the failure; not when it
// only planned, asked, or said nothing the error did not.
func TestExplainedFix(t *testing.T) {
	const fail = "fail: gh repo create randroid-dojo/dvr --public --source . --remote origin --push => HTTP 404: Not Found (https://api.github.com/users/randroid-dojo)"
	const rerun = "bash: gh repo create Randroids-Dojo/dvr --public --description x --source . --remote origin"
	for _, c := range []struct {
		name   string
		script []string
		want   []string
	}{
		{"the agent said why", []string{"user: publish it", "assistant: ok", fail,
			"assistant: Let me check the organization name.", "bash: gh api user/orgs --jq '.[].login'",
			"assistant: The organization name is \"Randroids-Dojo\" (with an 's'). Let me create the repository with the correct name.", rerun},
			[]string{"pitfall: `gh repo create` fails with \"HTTP 404: Not Found (https://api.github.com/users/randroid-dojo)\": The organization name is \"Randroids-Dojo\" (with an 's')."}},
		{"said in Japanese, the plan after it", []string{"user: 公開して", "assistant: ok", fail,
			"assistant: 組織名は Randroids-Dojo でした（randroid-dojo ではありません）。正しい名前で作成します。", rerun},
			[]string{"pitfall: `gh repo create` fails with \"HTTP 404: Not Found (https://api.github.com/users/randroid-dojo)\": 組織名は Randroids-Dojo でした（randroid-dojo ではありません）。"}},
		{"said on the way, before a step between", []string{"user: publish it", "assistant: ok", fail,
			"assistant: The organization is Randroids-Dojo, not randroid-dojo. Installing first.", "bash: npm install", rerun},
			[]string{"pitfall: `gh repo create` fails with \"HTTP 404: Not Found (https://api.github.com/users/randroid-dojo)\": The organization is Randroids-Dojo, not randroid-dojo."}},
		{"said before a read through the shell", []string{"user: publish it", "assistant: ok", fail,
			"assistant: The organization is Randroids-Dojo, not randroid-dojo.", "bash: cat .git/config", rerun},
			[]string{"pitfall: `gh repo create` fails with \"HTTP 404: Not Found (https://api.github.com/users/randroid-dojo)\": The organization is Randroids-Dojo, not randroid-dojo."}},
		{"only a plan", []string{"user: publish it", "assistant: ok", fail,
			"assistant: Let me create it under the Randroids-Dojo organization instead.", rerun}, nil},
		{"a plan in -ing", []string{"user: publish it", "assistant: ok", fail,
			"assistant: Trying the Randroids-Dojo organization instead.", rerun}, nil},
		{"a question", []string{"user: publish it", "assistant: ok", fail,
			"assistant: Is the organization Randroids-Dojo rather than randroid-dojo?", rerun}, nil},
		{"the failure reported again", []string{"user: publish it", "assistant: ok", fail,
			"assistant: Same error here for randroid-dojo, moving on.", rerun}, nil},
		{"the failure reported again, in Japanese", []string{"user: publish it", "assistant: ok", fail,
			"assistant: randroid-dojo でエラーになりました。", rerun}, nil},
		{"only a URL's host shared", []string{"user: publish it", "assistant: ok", fail,
			"assistant: GitHub auth looks fine.", rerun}, nil},
		{"a full-width colon introduces", []string{"user: publish it", "assistant: ok", fail,
			"assistant: randroid-dojo 的正确名称如下：", rerun}, nil},
		{"code the agent quotes", []string{"user: publish it", "assistant: ok", fail,
			"assistant: Retrying:\n```\ngh repo create Randroids-Dojo/dvr --public\n```", rerun}, nil},
		{"only what it introduces", []string{"user: publish it", "assistant: ok", fail,
			"assistant: Now the repository under the dojo organization:", rerun}, nil},
		{"nothing the error does not say", []string{"user: publish it", "assistant: ok", fail,
			"assistant: The randroid-dojo user was not found.", rerun}, nil},
		{"about something else", []string{"user: publish it", "assistant: ok", fail,
			"assistant: The description needs quotes.", rerun}, nil},
		{"a file changed on the way: the work", []string{"user: publish it", "assistant: ok", fail,
			"edit: /repo/.github/settings.yml",
			"assistant: The organization name is \"Randroids-Dojo\" (with an 's').", rerun}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := lessonsOf(session("s", c.script...)); !slices.Equal(got, c.want) {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}

// The error and the sentence are read alike: an accent does not make a
// word new.
func TestExplanationReadsBothFolded(t *testing.T) {
	if got := explanation("El archivo de configuración no existe.", errorWords("Error: el archivo de configuración no existe")); got != "" {
		t.Errorf("a restatement kept: %q", got)
	}
	if got := explanation("La configuración vive en config/prod.yaml.", errorWords("Error: falta la configuración")); got == "" {
		t.Error("an explanation dropped")
	}
}
