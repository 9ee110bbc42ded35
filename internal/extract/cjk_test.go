package extract

import "testing"

// A rule to record named as one, the rule said before it: "Xというルールを
// 追加して", "X라는 규칙을 추가해줘", "加一条规则：X".
func TestRuleToRecordNamedAsOne(t *testing.T) {
	checkSaid(t, []string{"user: 設定を直して", "assistant: 直しました。"}, "はい。", []said{
		{"APIのレスポンスはsnake_caseにするというルールを追加してください", []string{"procedural: APIのレスポンスはsnake_caseにするというルールを追加してください。"}},
		{"API 응답은 snake_case 로 한다는 규칙을 추가해줘", []string{"procedural: API 응답은 snake_case 로 한다는 규칙을 추가해."}},
		{"加一条规则：接口返回的字段名是snake_case", []string{"procedural: 接口返回的字段名是snake_case。"}},
	})
}

// The right value named, as code writes it ("v2.3.1 が正しいバージョンです"),
// is how things are; asked whether it is right, or thought so, it is not.
func TestRightValueNamed(t *testing.T) {
	checkSaid(t, []string{"user: 設定を直して", "assistant: 直しました。"}, "はい。", []said{
		{"v2.3.1 が正しいバージョンです", []string{"procedural: v2.3.1 が正しいバージョンです。"}},
		{"この設定が正しいか確認して", nil},
		{"config.yaml が正しいと思います", nil},
		{"config.yaml が正しいことを確認して", nil},
		{"v2.3.1 が正しいのか確認して", nil},
		{"ポートは 8080 が正しいはずです", nil},
		{"v2.3.1 が正しいわけではありません", nil},
		{"v2.3.1 が正しい場合はそのまま進めて", nil},
	})
}

// "一問一答" (one question, one answer): how the person wants to be asked.
func TestOneQuestionAtATime(t *testing.T) {
	checkSaid(t, []string{"user: 設定を直して", "assistant: 直しました。"}, "はい。", []said{
		{"不明点は一問一答で聞いてください", []string{"procedural: 不明点は一問一答で聞いてください。"}},
	})
}
