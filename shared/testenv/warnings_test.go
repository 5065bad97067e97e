package testenv

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"

	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
)

// The warnings reach the recorder through client-go, which reads them from the Warning
// headers of the API server's answer, in order; each Take returns only the new ones.
func TestClientWithWarningsRecordsTheWarningsOfEachAnswer(t *testing.T) {
	g := NewWithT(t)
	warnings := []string{`spec.image: "pause" has no tag, which means latest`, "a second warning"}
	server := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for _, text := range warnings {
			w.Header().Add("Warning", "299 - "+strconv.Quote(text))
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write([]byte(`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"namespace":"ns","name":"warned"}}`))
	}))
	defer server.Close()

	// An Env reaching the fake API server above: its client lends the scheme and the
	// REST mapping, which a real API server's discovery would give.
	mapper := meta.NewDefaultRESTMapper(nil)
	mapper.Add(corev1.SchemeGroupVersion.WithKind("ConfigMap"), meta.RESTScopeNamespace)
	e := &Env{
		config: &rest.Config{Host: server.URL},
		client: fake.NewClientBuilder().WithScheme(clientgoscheme.Scheme).WithRESTMapper(mapper).Build(),
	}
	e.once.Do(func() {}) // started: there is nothing to start
	c, recorder := e.ClientWithWarnings(g)
	g.Expect(recorder.Take()).To(BeNil(), "no answer yet, no warning")

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "warned"}}
	g.Expect(c.Create(context.Background(), cm)).To(Succeed())
	g.Expect(recorder.Take()).To(Equal(warnings))
	g.Expect(recorder.Take()).To(BeNil(), "the warnings were taken")
}
