package controller

import (
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	. "github.com/onsi/gomega"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"

	nodesv1 "github.com/kube-workshop/operator-workshop/solutions/14-nodepool-apply/api/nodes/v1"
)

// A spec change on a pool of many members is one change of the pool: one event tells it,
// not one per node (the recorder drops events past 1000 anyway). The log names each node.
// Its passes are run by hand, so it comes first: a pass that emits no event fails it at
// once, where the test after it waits for the running manager's event until its wait
// runs out.
func TestAPassOnManyNodesEmitsOneEventPerKindOfChange(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("many-events")
	const members = 20
	createMembers(t, g, name, members)
	pool := createPool(t, g, unmanagedPool(newNodePool(name, sampleLabels)))
	recorder := events.NewFakeRecorder(100)
	r := newReconciler(env.Client())
	r.Recorder = recorder

	runPass(g, r, pool)
	g.Expect(takeEvents(recorder)).To(HaveExactElements(
		fmt.Sprintf("Normal NodeJoined %d nodes joined the pool and got its labels and taints; the first is %s-00", members, name)),
		"%d nodes joining in one pass should be told by one event that counts them", members)

	setPoolSpec(g, pool, func(spec *nodesv1.NodePoolSpec) { spec.Labels = map[string]string{"pool.test/a": "1"} })
	runPass(g, r, pool)
	g.Expect(takeEvents(recorder)).To(HaveExactElements(And(HavePrefix("Normal NodeUpdated"), ContainSubstring("%d nodes", members))),
		"a spec change on %d members should be told by one event", members)
}

// The running manager's recorder writes events.k8s.io/v1 Events; those of a
// cluster-scoped object go to the namespace default. An event emitted again is not a new
// Event but a series on the first (series.count), as `kubectl events` shows with
// "(x123 over 12m)".
func TestANodeJoiningEmitsExactlyOneEvent(t *testing.T) {
	g := NewWithT(t)
	name := uniqueName("join")
	node := createTestNode(t, g, name+"-node", nil)
	pool := createPool(t, g, newNodePool(name, sampleLabels, sampleTaint))
	g.Eventually(func(g Gomega) {
		g.Expect(latestPool(g, pool)).To(havePoolReady(metav1.ConditionFalse, nodesv1.ReasonNoNodes),
			"the running manager's first pass of a pool without members should set Ready False NoNodes "+
				"(task 4), in the status patch of task 5")
	}).Should(Succeed())

	anyValue := ""
	labelNode(g, node, poolMemberLabel(name), &anyValue)

	joined := func(g Gomega) {
		g.Expect(eventsAbout(g, pool)).To(Equal([]string{"Normal NodeJoined, related Node " + node.Name + ", emitted once"}),
			"one join should emit one event, and the passes after it none: an event is told once, when a pass "+
				"changed something (nodeChange), never because a pass ran")
	}
	g.Eventually(joined).Should(Succeed())
	// The passes that follow (the node's own update, the status patch) change nothing.
	g.Consistently(joined, 2*time.Second).Should(Succeed())
}

func TestEventNoteFitsTheAPIServersLimit(t *testing.T) {
	g := NewWithT(t)
	g.Expect(eventNote("short")).To(Equal("short"))
	long := eventNote(strings.Repeat("é", 1000))
	g.Expect(len(long)).To(BeNumerically("<=", 1024), "the API server refuses a longer note")
	g.Expect(long).To(HaveSuffix("..."))
	g.Expect(utf8.ValidString(long)).To(BeTrue(), "a note cut in the middle of a character is not valid UTF-8")
}

// eventsAbout lists, straight from the API server, the events about pool, as "Type
// Reason, related Kind name, emitted N times".
func eventsAbout(g Gomega, pool *nodesv1.NodePool) []string {
	var list eventsv1.EventList
	g.Expect(env.Client().List(env.Context(), &list, client.InNamespace(metav1.NamespaceDefault))).To(Succeed())
	var about []string
	for _, e := range list.Items {
		if e.Regarding.Kind != "NodePool" || e.Regarding.UID != pool.UID {
			continue
		}
		description := e.Type + " " + e.Reason
		if e.Related != nil {
			description += ", related " + e.Related.Kind + " " + e.Related.Name
		}
		if e.Series == nil {
			description += ", emitted once"
		} else {
			description += fmt.Sprintf(", emitted %d times", e.Series.Count)
		}
		about = append(about, description)
	}
	return about
}

// takeEvents returns the events recorder has received so far, as "Type Reason note".
func takeEvents(recorder *events.FakeRecorder) []string {
	var got []string
	for {
		select {
		case e := <-recorder.Events:
			got = append(got, e)
		default:
			return got
		}
	}
}
