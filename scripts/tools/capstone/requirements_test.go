//go:build capstone

package capstone

import (
	"errors"
	"fmt"
	"maps"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Each test is one requirement of docs/lesson-15.md, in its order; its failures start
// with the requirement's number, so that a failing row says which one broke. Most tests
// run in parallel, each in namespaces of its own: a scaffold without logic fails them in
// one wait rather than one each. R5, R6 and R7 check that the operator hears of a change
// (of the source, of a copy, of a namespace): they run first, one at a time, on a quiet
// cluster, where no other test's events would wake a controller that does not watch.

// refused checks that err is the API server's refusal naming field.
func refused(err error, field string) error {
	if err == nil {
		return errors.New("the API server accepted it")
	}
	if !apierrors.IsInvalid(err) && !apierrors.IsForbidden(err) && !apierrors.IsBadRequest(err) {
		return fmt.Errorf("refused, but not as invalid: %v", err)
	}
	if !strings.Contains(err.Error(), field) {
		return fmt.Errorf("refused without naming %s: %v", field, err)
	}
	return nil
}

func TestR1SchemaRefusesWhatItCanState(t *testing.T) {
	t.Parallel()
	namespace(t, "r1-src", nil)
	configMap(t, "r1-src", "settings", map[string]string{"a": "1"}, nil)

	noName := copyObject("r1-no-name", "r1-src", "", map[string]string{"r1": "yes"}, "")
	unstructured.RemoveNestedField(noName.Object, "spec", "source", "name")
	if err := refused(k.Create(ctx, noName), "spec.source.name"); err != nil {
		t.Fatalf("R1: a ConfigMapCopy without spec.source.name must be refused by the schema, naming the field: %v", err)
	}
	empty := copyObject("r1-empty", "r1-src", "settings", nil, "")
	if err := refused(k.Create(ctx, empty), "spec.namespaceSelector"); err != nil {
		t.Fatalf("R1: an empty spec.namespaceSelector (it would pick every namespace) must be refused by the schema, naming the field: %v", err)
	}
	badName := copyObject("r1-bad-target", "r1-src", "settings", map[string]string{"r1": "yes"}, "Not_A_Name")
	if err := refused(k.Create(ctx, badName), "spec.targetName"); err != nil {
		t.Fatalf("R1: a spec.targetName that is no ConfigMap name must be refused by the schema, naming the field: %v", err)
	}
	good := copyObject("r1", "r1-src", "settings", map[string]string{"r1": "yes"}, "")
	createCopy(t, good)
	err := updateCopy("r1", func(u *unstructured.Unstructured) {
		_ = unstructured.SetNestedField(u.Object, "other", "spec", "source", "name")
	})
	if err := refused(err, "immutable"); err != nil {
		t.Fatalf("R1: a change of spec.source must be refused by the schema, saying it is immutable: %v", err)
	}
}

func TestR2WebhookDefaultsTheCopiesName(t *testing.T) {
	t.Parallel()
	namespace(t, "r2-src", nil)
	createCopy(t, copyObject("r2", "r2-src", "settings", map[string]string{"r2": "yes"}, ""))
	u := created(t, "r2")
	if got, _, _ := unstructured.NestedString(u.Object, "spec", "targetName"); got != "settings" {
		t.Fatalf("R2: a ConfigMapCopy created without spec.targetName must have it defaulted to spec.source.name (settings) by the webhook; it has %q", got)
	}
	createCopy(t, copyObject("r2-named", "r2-src", "settings", map[string]string{"r2": "yes"}, "mine"))
	u = created(t, "r2-named")
	if got, _, _ := unstructured.NestedString(u.Object, "spec", "targetName"); got != "mine" {
		t.Fatalf("R2: the webhook must keep a spec.targetName the user gave (mine); it is %q", got)
	}
}

func TestR3WebhookRefusesASelectorThatDoesNotParse(t *testing.T) {
	t.Parallel()
	namespace(t, "r3-src", nil)
	noValues := copyObject("r3-no-values", "r3-src", "settings", nil, "")
	noValues.Object["spec"].(map[string]any)["namespaceSelector"] = map[string]any{
		"matchExpressions": []any{map[string]any{"key": "team", "operator": "In"}},
	}
	if err := refused(k.Create(ctx, noValues), "spec.namespaceSelector"); err != nil {
		t.Fatalf("R3: a selector whose expression has operator In and no values must be refused by the validating webhook, naming spec.namespaceSelector: %v", err)
	}
	badValue := copyObject("r3-bad-value", "r3-src", "settings", map[string]string{"team": "not a value"}, "")
	if err := refused(k.Create(ctx, badValue), "spec.namespaceSelector"); err != nil {
		t.Fatalf("R3: a selector with the label value \"not a value\" must be refused by the validating webhook, naming spec.namespaceSelector: %v", err)
	}
	good := copyObject("r3", "r3-src", "settings", map[string]string{"team": "r3"}, "")
	createCopy(t, good)
	err := updateCopy("r3", setSelector(map[string]any{"team": "bad value"}))
	if err := refused(err, "spec.namespaceSelector"); err != nil {
		t.Fatalf("R3: an update to a selector that does not parse must be refused by the validating webhook too: %v", err)
	}
}

var (
	sourceData   = map[string]string{"greeting": "hello", "level": "info"}
	sourceBinary = map[string][]byte{"blob": {0, 1, 2, 255}}
)

func TestR4EverySelectedNamespaceGetsACopy(t *testing.T) {
	t.Parallel()
	sel := map[string]string{"r4": "yes"}
	namespace(t, "r4-src", sel)
	namespace(t, "r4-a", sel)
	namespace(t, "r4-b", sel)
	namespace(t, "r4-other", map[string]string{"r4": "no"})
	configMap(t, "r4-src", "settings", sourceData, sourceBinary)
	createCopy(t, copyObject("r4", "r4-src", "settings", sel, "shared-settings"))
	owner := created(t, "r4")
	for _, ns := range []string{"r4-a", "r4-b"} {
		eventually(t, "R4: every namespace the selector picks must get a copy named spec.targetName, with the source's data and binaryData and a controller owner reference to the ConfigMapCopy", func() error {
			return isCopy(ns, "shared-settings", sourceData, sourceBinary, owner)
		})
	}
	consistently(t, "R4: a namespace the selector does not pick, and the source's own namespace, get no copy", 2*time.Second, func() error {
		return errors.Join(isGone("r4-other", "shared-settings"), isGone("r4-src", "shared-settings"))
	})
}

func TestR5CopiesFollowTheirSource(t *testing.T) {
	sel := map[string]string{"r5": "yes"}
	namespace(t, "r5-src", nil)
	namespace(t, "r5-a", sel)
	namespace(t, "r5-b", sel)
	src := configMap(t, "r5-src", "settings", sourceData, sourceBinary)
	// The copies have a name of their own: an event of the source then reaches the
	// ConfigMapCopy only through a watch of its source, not by the copies' name.
	createCopy(t, copyObject("r5", "r5-src", "settings", sel, "r5-copy"))
	owner := created(t, "r5")
	for _, ns := range []string{"r5-a", "r5-b"} {
		eventually(t, "R5: (set-up) each selected namespace gets its copy first", func() error {
			return isCopy(ns, "r5-copy", sourceData, sourceBinary, owner)
		})
	}
	edited := map[string]string{"greeting": "bonjour", "colour": "blue"}
	src.Data = edited
	src.BinaryData = nil
	must(t, "edit the source", k.Update(ctx, src))
	for _, ns := range []string{"r5-a", "r5-b"} {
		eventually(t, "R5: when the source's data changes (a key changed, one added, one removed, binaryData emptied), every copy must follow", func() error {
			return isCopy(ns, "r5-copy", edited, nil, owner)
		})
	}
}

func TestR6ACopyChangedOrDeletedBySomeoneIsPutBack(t *testing.T) {
	sel := map[string]string{"r6": "yes"}
	namespace(t, "r6-src", nil)
	namespace(t, "r6-a", sel)
	configMap(t, "r6-src", "settings", sourceData, nil)
	createCopy(t, copyObject("r6", "r6-src", "settings", sel, ""))
	owner := created(t, "r6")
	eventually(t, "R6: (set-up) the namespace gets its copy first", func() error {
		return isCopy("r6-a", "settings", sourceData, nil, owner)
	})
	cm, err := getConfigMap("r6-a", "settings")
	must(t, "read the copy", err)
	cm.Data = map[string]string{"greeting": "tampered"}
	must(t, "edit the copy", k.Update(ctx, cm))
	eventually(t, "R6: a copy someone edited must be set back to the source's data", func() error {
		return isCopy("r6-a", "settings", sourceData, nil, owner)
	})
	cm, err = getConfigMap("r6-a", "settings")
	must(t, "read the copy", err)
	must(t, "delete the copy", k.Delete(ctx, cm))
	eventually(t, "R6: a copy someone deleted must be made again", func() error {
		if err := isCopy("r6-a", "settings", sourceData, nil, owner); err != nil {
			return err
		}
		again, err := getConfigMap("r6-a", "settings")
		if err == nil && again.UID == cm.UID {
			return errors.New("the deleted copy is still there")
		}
		return err
	})
}

func TestR7CopiesFollowTheNamespacesTheSelectorPicks(t *testing.T) {
	sel := map[string]string{"r7": "yes"}
	namespace(t, "r7-src", nil)
	namespace(t, "r7-a", sel)
	namespace(t, "r7-b", sel)
	namespace(t, "r7-later", nil)
	configMap(t, "r7-src", "settings", sourceData, nil)
	createCopy(t, copyObject("r7", "r7-src", "settings", sel, ""))
	owner := created(t, "r7")
	for _, ns := range []string{"r7-a", "r7-b"} {
		eventually(t, "R7: (set-up) each selected namespace gets its copy first", func() error {
			return isCopy(ns, "settings", sourceData, nil, owner)
		})
	}
	setNamespaceLabels(t, "r7-a", map[string]string{"r7": "no"})
	eventually(t, "R7: a namespace the selector no longer picks (its label changed) must lose its copy", func() error {
		return isGone("r7-a", "settings")
	})
	setNamespaceLabels(t, "r7-later", sel)
	eventually(t, "R7: a namespace the selector picks from now on (labelled later) must get a copy", func() error {
		return isCopy("r7-later", "settings", sourceData, nil, owner)
	})
	must(t, "change the selector", updateCopy("r7", setSelector(map[string]any{"r7": "no"})))
	eventually(t, "R7: when spec.namespaceSelector changes, the namespaces it no longer picks lose their copy and those it picks get one", func() error {
		return errors.Join(isGone("r7-b", "settings"), isGone("r7-later", "settings"), isCopy("r7-a", "settings", sourceData, nil, owner))
	})
}

func TestR8DeletingTheConfigMapCopyRemovesEveryCopy(t *testing.T) {
	t.Parallel()
	sel := map[string]string{"r8": "yes"}
	namespace(t, "r8-src", nil)
	namespace(t, "r8-a", sel)
	namespace(t, "r8-b", sel)
	configMap(t, "r8-src", "settings", sourceData, nil)
	createCopy(t, copyObject("r8", "r8-src", "settings", sel, ""))
	owner := created(t, "r8")
	for _, ns := range []string{"r8-a", "r8-b"} {
		eventually(t, "R8: (set-up) each selected namespace gets its copy first", func() error {
			return isCopy(ns, "settings", sourceData, nil, owner)
		})
	}
	must(t, "delete the ConfigMapCopy", k.Delete(ctx, owner))
	eventually(t, "R8: once the ConfigMapCopy is deleted, its copies must be gone from every namespace, and the ConfigMapCopy too (a finalizer holds it until then)", func() error {
		_, err := getCopy("r8")
		if err == nil {
			err = errors.New("the ConfigMapCopy is still there")
		} else if apierrors.IsNotFound(err) {
			err = nil
		}
		return errors.Join(err, isGone("r8-a", "settings"), isGone("r8-b", "settings"))
	})
}

func TestR9SomeoneElsesConfigMapIsLeftAndReported(t *testing.T) {
	t.Parallel()
	sel := map[string]string{"r9": "yes"}
	namespace(t, "r9-src", nil)
	namespace(t, "r9-a", sel)
	namespace(t, "r9-theirs", sel)
	namespace(t, "r9-kept", sel)
	configMap(t, "r9-src", "settings", sourceData, nil)
	theirs := map[string]string{"owner": "someone else"}
	other := configMap(t, "r9-theirs", "settings", theirs, nil)
	kept := configMap(t, "r9-kept", "settings", theirs, nil)
	createCopy(t, copyObject("r9", "r9-src", "settings", sel, ""))
	owner := created(t, "r9")
	eventually(t, "R9: a namespace without a conflict gets its copy", func() error {
		return isCopy("r9-a", "settings", sourceData, nil, owner)
	})
	eventually(t, "R9: someone else's ConfigMap of the copies' name must be reported: condition Conflict True, its message naming the namespace, and Ready False", func() error {
		return errors.Join(hasCondition("r9", "Conflict", "True", "r9-theirs", "r9-kept"), hasCondition("r9", "Ready", "False"))
	})
	consistently(t, "R9: someone else's ConfigMap must be left untouched: its data, labels and owner references as they were", 2*time.Second, func() error {
		cm, err := getConfigMap("r9-theirs", "settings")
		if err != nil {
			return err
		}
		if !maps.Equal(cm.Data, theirs) || len(cm.OwnerReferences) > 0 || len(cm.Labels) > 0 || cm.ResourceVersion != other.ResourceVersion {
			return fmt.Errorf("it was changed: data %v, labels %v, owners %v", cm.Data, cm.Labels, cm.OwnerReferences)
		}
		return nil
	})
	must(t, "delete their ConfigMap", k.Delete(ctx, other))
	eventually(t, "R9: once someone else's ConfigMap is gone, the namespace gets its copy", func() error {
		return isCopy("r9-theirs", "settings", sourceData, nil, owner)
	})
	must(t, "delete the ConfigMapCopy", k.Delete(ctx, owner))
	eventually(t, "R9: the deletion of the ConfigMapCopy must remove its copies and leave someone else's ConfigMap of the same name as it was", func() error {
		cm, err := getConfigMap("r9-kept", "settings")
		if err != nil {
			return err
		}
		if !maps.Equal(cm.Data, theirs) || cm.UID != kept.UID {
			return fmt.Errorf("it was changed: data %v", cm.Data)
		}
		return errors.Join(isGone("r9-a", "settings"), isGone("r9-theirs", "settings"))
	})
}

func TestR10ANamespaceThatRefusesItsCopyBlocksNoOther(t *testing.T) {
	t.Parallel()
	sel := map[string]string{"r10": "yes"}
	namespace(t, "r10-src", nil)
	namespace(t, "r10-a", sel)
	namespace(t, "r10-b-closing", sel)
	namespace(t, "r10-c", sel)
	configMap(t, "r10-src", "settings", sourceData, nil)
	// A namespace being deleted refuses new objects; without a namespace controller it
	// stays so.
	closing, err := getNamespace("r10-b-closing")
	must(t, "read the namespace", err)
	must(t, "delete the namespace", k.Delete(ctx, closing))
	createCopy(t, copyObject("r10", "r10-src", "settings", sel, ""))
	owner := created(t, "r10")
	for _, ns := range []string{"r10-a", "r10-c"} {
		eventually(t, "R10: a namespace that refuses its copy (it is being deleted) must not keep the others from theirs", func() error {
			return isCopy(ns, "settings", sourceData, nil, owner)
		})
	}
	eventually(t, "R10: a namespace that refuses its copy must show in condition Ready: False, its message naming the namespace", func() error {
		return hasCondition("r10", "Ready", "False", "r10-b-closing")
	})
}

func TestR11StatusSaysWhatThePassFound(t *testing.T) {
	t.Parallel()
	sel := map[string]string{"r11": "yes"}
	namespace(t, "r11-src", nil)
	namespace(t, "r11-a", sel)
	createCopy(t, copyObject("r11", "r11-src", "settings", sel, ""))
	eventually(t, "R11: while the source does not exist, condition Ready must be False with reason SourceNotFound", func() error {
		u, err := getCopy("r11")
		if err != nil {
			return err
		}
		c, _ := conditionOf(u, "Ready")
		if c.Status != "False" || c.Reason != "SourceNotFound" {
			return fmt.Errorf("Ready is %q with reason %q", c.Status, c.Reason)
		}
		return nil
	})
	configMap(t, "r11-src", "settings", sourceData, nil)
	inLine := func(what string) {
		eventually(t, what, func() error {
			u, err := getCopy("r11")
			if err != nil {
				return err
			}
			gen := u.GetGeneration()
			observed, _, _ := unstructured.NestedInt64(u.Object, "status", "observedGeneration")
			ready, _ := conditionOf(u, "Ready")
			conflict, found := conditionOf(u, "Conflict")
			switch {
			case ready.Status != "True":
				return fmt.Errorf("Ready is %q (%s: %q)", ready.Status, ready.Reason, ready.Message)
			case !found || conflict.Status != "False":
				return fmt.Errorf("Conflict is %q, want False", conflict.Status)
			case observed != gen || ready.ObservedGeneration != gen:
				return fmt.Errorf("metadata.generation is %d, status.observedGeneration %d, Ready's observedGeneration %d", gen, observed, ready.ObservedGeneration)
			}
			return nil
		})
	}
	inLine("R11: once every selected namespace holds its copy, Ready must be True, Conflict False, and status.observedGeneration and Ready's observedGeneration equal to metadata.generation")
	must(t, "change the selector", updateCopy("r11", setSelector(map[string]any{"r11": "yes", "extra": "no"})))
	inLine("R11: after a change of the spec, status.observedGeneration and Ready's observedGeneration must follow metadata.generation")
}
