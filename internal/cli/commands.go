package cli

import "github.com/spf13/cobra"

// commands lists every subcommand of the root, in help order. Each lives in
// its own file.
func commands(env *Env) []*cobra.Command {
	return []*cobra.Command{
		newObserveCmd(env),
		newIngestCmd(env),
		newCompactCmd(env),
		newLearnCmd(env),
		newLessonsCmd(env),
		newRenderReadyCmd(env),
		newReconcileCmd(env),
		newDemoCmd(env),
		newMergeCmd(env),
		newMergeDriverCmd(env),
		newResolveCmd(env),
		newTrustCmd(env),
		newInitCmd(env),
		newUninstallCmd(env),
		newMigrateCmd(env),
		newHudCmd(env),
		newDoctorCmd(env),
		newKnowledgeCmd(env),
		newDirectivesCmd(env),
		newHookCmd(env),
		newWorkerCmd(env),
		newLLMExtractCmd(env),
		newRedactCmd(env),
		newHistoryCmd(env),
		newRevertCmd(env),
		newCurateCmd(env),
		newGateCmd(env),
		newTaskCmd(env),
		newSkillCmd(env),
		newPromptCmd(env),
		newMCPCmd(env),
	}
}
