package isolation

import (
	"fmt"

	"github.com/dcsim/dcsim/fabric"
)

// Check verifies that every ARN frame is accounted for: sent = received +
// in transit, and every message handled is consumed, forwarded, a
// duplicate or dropped.
func (iso *Isolation) Check() error {
	k := iso.Counts()
	if transit := iso.net.CountInTransit(fabric.ARN); k.Sent != k.Received+transit {
		return fmt.Errorf("isolation: %d ARN frames sent, %d received + %d in transit", k.Sent, k.Received, transit)
	}
	if in, out := k.Generated+k.Received, k.Consumed+k.Forwarded+k.Duplicates+k.Dropped; in != out {
		return fmt.Errorf("isolation: %d ARN messages (%d generated + %d received), %d handled (%d consumed + %d forwarded + %d duplicates + %d dropped)",
			in, k.Generated, k.Received, out, k.Consumed, k.Forwarded, k.Duplicates, k.Dropped)
	}
	return nil
}
