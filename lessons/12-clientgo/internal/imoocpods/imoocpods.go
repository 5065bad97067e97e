// Package imoocpods is a small typed client for the ImoocPod API, written by hand over
// client-go's dynamic client and dynamic informer.
//
// A kind of your own usually gets its typed clientset, listers and informers from
// k8s.io/code-generator (client-gen, lister-gen, informer-gen), as
// kubernetes/sample-controller shows. This lesson allows no code generator, and the
// controller needs only three things from the API: a cache of ImoocPods that hands out
// typed objects, a read from that cache, and a write of the status. The dynamic client
// speaks JSON to any resource as map[string]any (unstructured.Unstructured);
// runtime.DefaultUnstructuredConverter turns those maps into our Go types and back, with
// the json tags of api/apps/v1 as the only schema.
package imoocpods

import (
	"context"
	"encoding/json"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/tools/cache"

	appsv1 "github.com/kube-workshop/operator-workshop/lessons/12-clientgo/api/apps/v1"
)

// Resource is the REST resource of ImoocPods: the dynamic client addresses an API by
// group, version and resource, the way the URL does
// (/apis/apps.workshop.dev/v1/namespaces/NS/imoocpods/NAME).
var Resource = appsv1.GroupVersion.WithResource("imoocpods")

// Informer returns the factory's shared informer of ImoocPods, made to store typed
// objects: every ImoocPod is converted once, as it enters the cache, instead of on
// every read. Call it before the factory starts.
func Informer(factory dynamicinformer.DynamicSharedInformerFactory) (cache.SharedIndexInformer, error) {
	informer := factory.ForResource(Resource).Informer()
	if err := informer.SetTransform(toImoocPod); err != nil {
		return nil, fmt.Errorf("converting the ImoocPods of the cache: %w", err)
	}
	return informer, nil
}

// toImoocPod is the informer's transform: it turns the dynamic client's
// *unstructured.Unstructured into an *appsv1.ImoocPod. The event handlers and the
// lister then only ever see ImoocPods. It also drops managedFields, which nothing here
// reads, as the workshop's other managers do (bootstrap.WithDefaults).
func toImoocPod(obj any) (any, error) {
	// TODO(1): Convert the informer's objects to ImoocPods.
	// The transform must turn each *unstructured.Unstructured into an
	// *appsv1.ImoocPod without managed fields, and pass anything else
	// through: a transform may see an object twice.
	// See "A typed client of our own" in docs/lesson-12.md.
	return obj, nil
}

// Lister reads ImoocPods from an informer's cache. Like every lister, it returns the
// cache's own objects: read them, and DeepCopy one before changing it.
type Lister struct {
	indexer cache.Indexer
}

// NewLister returns a lister over the cache of an informer made by Informer.
func NewLister(informer cache.SharedIndexInformer) Lister {
	return Lister{indexer: informer.GetIndexer()}
}

// Get returns the ImoocPod namespace/name from the cache, or a NotFound error, as a
// generated lister does.
func (l Lister) Get(namespace, name string) (*appsv1.ImoocPod, error) {
	obj, exists, err := l.indexer.GetByKey(cache.NewObjectName(namespace, name).String())
	if err != nil {
		return nil, err
	}
	if !exists {
		return nil, apierrors.NewNotFound(Resource.GroupResource(), name)
	}
	imoocPod, ok := obj.(*appsv1.ImoocPod)
	if !ok {
		return nil, fmt.Errorf("the cache holds a %T for ImoocPod %s/%s: was the informer made by imoocpods.Informer?", obj, namespace, name)
	}
	return imoocPod, nil
}

// Client writes ImoocPods through the dynamic client.
type Client struct {
	dynamic dynamic.Interface
}

// NewClient returns a client that writes through client.
func NewClient(client dynamic.Interface) *Client {
	return &Client{dynamic: client}
}

// Get reads the ImoocPod namespace/name from the API server, not from a cache.
func (c *Client) Get(ctx context.Context, namespace, name string) (*appsv1.ImoocPod, error) {
	u, err := c.dynamic.Resource(Resource).Namespace(namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	obj, err := toImoocPod(u)
	if err != nil {
		return nil, err
	}
	imoocPod, ok := obj.(*appsv1.ImoocPod)
	if !ok {
		return nil, fmt.Errorf("reading ImoocPod %s/%s: toImoocPod returned a %T", namespace, name, obj)
	}
	return imoocPod, nil
}

// PatchStatus sends the difference between orig's status and modified's as one JSON
// merge patch of the status subresource: what controller-runtime's
// Status().Patch(ctx, modified, client.MergeFrom(orig)) sends. A merge patch carries no
// resourceVersion, so it never conflicts with the user's writes of the spec. Like
// controller-runtime's Patch, it leaves in modified the resourceVersion of the answer:
// that of the write.
func (c *Client) PatchStatus(ctx context.Context, orig, modified *appsv1.ImoocPod) error {
	patch, err := statusMergePatch(orig, modified)
	if err != nil {
		return err
	}
	patched, err := c.dynamic.Resource(Resource).Namespace(modified.Namespace).
		Patch(ctx, modified.Name, types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	if err != nil {
		return err
	}
	modified.ResourceVersion = patched.GetResourceVersion()
	return nil
}

// statusMergePatch returns the JSON merge patch that turns orig's status into
// modified's. A merge patch sets every field it names and deletes every field it sets to
// null; a field it leaves out stays as it is.
func statusMergePatch(orig, modified *appsv1.ImoocPod) ([]byte, error) {
	before, err := json.Marshal(map[string]any{"status": orig.Status})
	if err != nil {
		return nil, err
	}
	after, err := json.Marshal(map[string]any{"status": modified.Status})
	if err != nil {
		return nil, err
	}
	// With current = original, the three-way patch is the plain difference: what
	// changed, and null for what modified dropped (a field back to its zero value, left
	// out by its omitempty tag: the selector, the conditions). Sending {"status":
	// modified.Status} alone would leave such a field at its old value.
	patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch(before, after, before)
	if err != nil {
		return nil, fmt.Errorf("computing the status patch: %w", err)
	}
	return patch, nil
}
