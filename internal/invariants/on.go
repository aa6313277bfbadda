//go:build invariants

package invariants

// Enabled is true when built with -tags invariants: the simulator then
// checks its conservation laws after every event.
const Enabled = true
