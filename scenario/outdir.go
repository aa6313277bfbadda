package scenario

import "path/filepath"

// ScenarioFile is the resolved scenario in a run's directory.
const ScenarioFile = "scenario.yaml"

// DefaultDir is where dcsim run writes s without --out: out/NAME-HASH,
// with HASH the first 12 hex digits of the scenario's hash, and "run" for
// an unnamed scenario. Validate has checked that NAME is one safe path
// component.
func (s *Scenario) DefaultDir() string {
	name := s.Name
	if name == "" {
		name = "run"
	}
	return filepath.Join("out", name+"-"+s.Hash()[:12])
}
