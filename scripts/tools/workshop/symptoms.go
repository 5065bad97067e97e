package main

import (
	"fmt"
	"strings"

	"github.com/kube-workshop/operator-workshop/scripts/tools/internal/symptoms"
)

// workshop symptoms FILE... prints, for each known symptom (scripts/lib/symptoms.tsv)
// found in the files, the line that shows it and the troubleshooting entry that
// explains it (on stderr, as a progress line); nothing when none is found.
func symptomsCommand(root string, args []string) error {
	k, err := symptoms.Read(root)
	if err != nil {
		return err
	}
	k.Explain(stderr, args...)
	return nil
}

// workshop symptoms-check fails unless every row of scripts/lib/symptoms.tsv matches its
// example and names an entry of shared/TROUBLESHOOTING.md (scripts/verify.sh).
func symptomsCheckCommand(root string, args []string) error {
	k, err := symptoms.Read(root)
	if err != nil {
		return err
	}
	if bad := k.Check(); len(bad) > 0 {
		return fmt.Errorf("%s:\n  %s", symptoms.Table, strings.Join(bad, "\n  "))
	}
	return nil
}
