package scenario

import (
	"fmt"
	"slices"
	"strings"
)

// classSchedulers tag packets with priority classes, which only strict
// priority switch queues act on; their study (docs/model.md §6) also runs
// one QP per host pair, so that messages queue behind each other and a
// QP's backlog means something.
var classSchedulers = []string{"storm", "storm-sender", "storm-sw", "srpt", "pias"}

// StudyNote says, in one line, where the scenario's set-up differs from
// the one its scheduler was studied on (the built-ins storm-cloud and
// storm-80: strict-priority switches, per-pair QPs), and "" where it does
// not or the scheduler has no such study. Not a warning: another set-up
// is a valid experiment, just not the published one.
func (s *Scenario) StudyNote() string {
	if !slices.Contains(classSchedulers, s.NIC.Scheduler) {
		return ""
	}
	var differs []string
	if s.Switch.Discipline != DisciplineStrict {
		differs = append(differs, "switch.discipline="+s.Switch.Discipline)
	}
	if s.NIC.QPMapping.Pool != 1 {
		differs = append(differs, "nic.qp_mapping="+s.NIC.QPMapping.String())
	}
	if len(differs) == 0 {
		return ""
	}
	return fmt.Sprintf("nic.scheduler=%s was studied with switch.discipline=strict and nic.qp_mapping=per-pair (the built-ins storm-cloud and storm-80); this run has %s",
		s.NIC.Scheduler, strings.Join(differs, " and "))
}
