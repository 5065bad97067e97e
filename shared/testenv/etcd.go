package testenv

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"testing"
)

// StoreInEtcd writes object, as JSON, straight into etcd under the API server's key for
// it: /registry/<group>/<resource>/<namespace>/<name> for a custom resource. It is how a
// test stores what the API server would refuse today but an older version of the API
// accepted: an object stored in a version that has changed since, which no write
// through the API server can make any more. The API server reads it as it reads any
// object etcd holds, converting it from the version its apiVersion names.
//
// object must hold what the API server writes itself: apiVersion, kind, and metadata
// with name, namespace, uid and creationTimestamp. It goes through etcd's JSON gateway
// (POST /v3/kv/put), so no etcd client is needed.
func (e *Env) StoreInEtcd(t testing.TB, key string, object any) {
	t.Helper()
	e.use()
	value, err := json.Marshal(object)
	if err != nil {
		t.Fatalf("encoding the object for etcd key %s: %v", key, err)
	}
	put, err := json.Marshal(map[string]string{
		"key":   base64.StdEncoding.EncodeToString([]byte(key)),
		"value": base64.StdEncoding.EncodeToString(value),
	})
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.Post(e.etcdURL+"/v3/kv/put", "application/json", bytes.NewReader(put))
	if err != nil {
		t.Fatalf("writing etcd key %s: %v", key, err)
	}
	defer resp.Body.Close()
	if body, _ := io.ReadAll(resp.Body); resp.StatusCode != http.StatusOK {
		t.Fatalf("writing etcd key %s: %s: %s", key, resp.Status, body)
	}
}

// EtcdKey returns the key under which the API server, with envtest's default prefix,
// stores the custom resource of resource (its plural) in group, namespace and name.
func EtcdKey(group, resource, namespace, name string) string {
	return fmt.Sprintf("/registry/%s/%s/%s/%s", group, resource, namespace, name)
}
