package hook

import (
	"strings"

	"github.com/devlearn/devlearn/internal/knowledge"
)

// failedClaim is what a failure's lesson is served once per session for
// at a failed call, apart from where it was served before a call: given
// before the call and failed all the same, the fix is worth saying at the
// error; given at one failure, it is not repeated at the next.
const failedClaim = "after a failure"

// failed is post-tool-use-failure: when a call fails, the failures
// learned before whose program it ran and whose error it printed again,
// served with what made them pass. Before a call, a failure's lesson can
// only guess from the command; here the error says it is the same one.
// Interrupted calls (the person stopped them) teach nothing.
func (r *run) failed() (*Output, error) {
	if !r.serving() || r.in.IsInterrupt || strings.TrimSpace(r.in.Error) == "" {
		return nil, errQuiet
	}
	sess := SessionOf(r.proj, r.in.SessionID)
	call := ToolCall(r.proj.Root, r.env.UserHome, r.in, nil)
	if len(call.Commands) == 0 {
		return nil, errQuiet
	}
	var ranked []knowledge.Scored
	for _, it := range r.candidates(call).Items {
		if it.Active && it.Runs(call) {
			ranked = append(ranked, knowledge.Scored{Item: it})
		}
	}
	if len(ranked) == 0 {
		return nil, errQuiet
	}
	got := knowledge.ReadError(r.in.Error)
	claim := func(*knowledge.Item) string { return failedClaim }
	return r.injectAdmitted(sess, call, ranked, "this "+r.in.ToolName+" call, which failed with an error met before", claim,
		func(fresh *knowledge.Item, shown knowledge.Shown) (knowledge.Breakdown, bool) {
			recorded := knowledge.FailedWith(strings.Join([]string{shown.Body, fresh.Text, fresh.Title, shown.Summary}, "\n"))
			return knowledge.Breakdown{}, fresh.Runs(call) && got.Holds(recorded)
		})
}
