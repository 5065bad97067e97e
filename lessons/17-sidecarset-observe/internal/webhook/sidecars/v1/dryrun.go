package v1

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	sidecarsv1 "github.com/kube-workshop/operator-workshop/lessons/17-sidecarset-observe/api/sidecars/v1"
)

// DryRunTimeout bounds the dry run of one SidecarSet's pod. It is half the validating
// webhook's timeoutSeconds (its marker), so that a slow API server gets a refusal that
// says what happened, before the API server gives up on the webhook and applies its
// failurePolicy (Fail: it refuses the SidecarSet too, with a message about the webhook).
const DryRunTimeout = 5 * time.Second

// dryRunImage is the image of the placeholder container of a dry-run pod.
const dryRunImage = "registry.k8s.io/pause:3.10"

// dryRunErrors asks the API server whether it would store a pod that runs set's sidecars:
// it creates dryRunPod(set) in namespace with a server-side dry run (client.DryRunAll),
// which admits and validates the pod as a real creation would, by the API server's own
// rules, all of them, and stores nothing. It returns what the API server refuses, each
// problem at the SidecarSet's field it comes from (sidecarFields). The error is for a dry
// run that could not be made (namespace missing, RBAC, timeout, an admission plugin's
// refusal): the SidecarSet is then refused too, as one that could not be checked.
func dryRunErrors(ctx context.Context, pods client.Writer, namespace string, set *sidecarsv1.SidecarSet) (field.ErrorList, error) {
	if len(set.Spec.Containers) == 0 {
		return nil, nil // validateContainers requires one.
	}
	ctx, cancel := context.WithTimeout(ctx, DryRunTimeout)
	defer cancel()
	pod := dryRunPod(set, namespace)
	err := pods.Create(ctx, pod, client.DryRunAll)
	if err == nil {
		return nil, nil
	}
	var status apierrors.APIStatus
	if apierrors.IsInvalid(err) && errors.As(err, &status) && status.Status().Details != nil {
		return sidecarFields(status.Status().Details.Causes, len(set.Spec.Containers), len(set.Spec.Volumes)), nil
	}
	return nil, apierrors.NewServiceUnavailable(fmt.Sprintf("spec.containers could not be checked: the API server did not "+
		"validate a dry run of a pod with these sidecars in namespace %s, the manager's (--manager-namespace), "+
		"so nothing was stored; try again, or fix this first: %v", namespace, err))
}

// dryRunPod returns the pod dryRunErrors has the API server validate for set: a placeholder
// container, set's sidecars as Inject adds them (init containers that restart Always,
// asSidecar), in their order, and set's volumes, in their order, so that their indexes
// are those of the SidecarSet's fields. After them, for each volume a sidecar mounts (or
// uses as a device) that set does not bring, a volume of that name, standing for the
// pod's own: only pods that have one get that sidecar. A name no volume can have gets
// none, and the API server says the mount finds no volume.
func dryRunPod(set *sidecarsv1.SidecarSet, namespace string) *corev1.Pod {
	names := sets.New[string]()
	for _, c := range set.Spec.Containers {
		names.Insert(c.Name)
	}
	placeholder := "sidecarset-dry-run"
	for names.Has(placeholder) {
		placeholder += "-x"
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{GenerateName: "sidecarset-dry-run-", Namespace: namespace},
		Spec: corev1.PodSpec{
			Containers: []corev1.Container{{Name: placeholder, Image: dryRunImage}},
		},
	}
	volumes := sets.New[string]()
	for i := range set.Spec.Volumes {
		pod.Spec.Volumes = append(pod.Spec.Volumes, *set.Spec.Volumes[i].DeepCopy())
		volumes.Insert(set.Spec.Volumes[i].Name)
	}
	podsOwn := func(name string, source corev1.VolumeSource) {
		if name == "" || volumes.Has(name) || len(content.IsDNS1123Label(name)) > 0 {
			return
		}
		volumes.Insert(name)
		pod.Spec.Volumes = append(pod.Spec.Volumes, corev1.Volume{Name: name, VolumeSource: source})
	}
	for i := range set.Spec.Containers {
		c := &set.Spec.Containers[i]
		pod.Spec.InitContainers = append(pod.Spec.InitContainers, asSidecar(c))
		for _, mount := range c.VolumeMounts {
			podsOwn(mount.Name, corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}})
		}
		for _, device := range c.VolumeDevices {
			// A device is a block volume: a claim's.
			podsOwn(device.Name, corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "pods-own"}})
		}
	}
	return pod
}

// podField matches the field of a cause of the dry run's refusal that comes from the
// SidecarSet: spec.initContainers[i]... or spec.volumes[i]...
var podField = regexp.MustCompile(`^spec\.(initContainers|volumes)\[(\d+)\](.*)$`)

// sidecarFields turns the causes of the API server's refusal of dryRunPod into errors at
// the SidecarSet's fields: spec.initContainers[i] is spec.containers[i], spec.volumes[i]
// is spec.volumes[i], for the SidecarSet's containers and volumes. A cause elsewhere
// (the pod as a whole, the placeholder container, a volume that stands for the pod's own)
// is reported at spec.containers, with the pod's field in its message. Each keeps the
// API server's words.
func sidecarFields(causes []metav1.StatusCause, containers, volumes int) field.ErrorList {
	errs := make(field.ErrorList, 0, len(causes))
	for _, cause := range causes {
		errType := field.ErrorType(cause.Type)
		detail, known := strings.CutPrefix(cause.Message, errType.String())
		switch errType {
		case field.ErrorTypeNotFound, field.ErrorTypeRequired, field.ErrorTypeDuplicate, field.ErrorTypeInvalid,
			field.ErrorTypeNotSupported, field.ErrorTypeForbidden, field.ErrorTypeTooLong, field.ErrorTypeTooMany,
			field.ErrorTypeTooFew, field.ErrorTypeInternal, field.ErrorTypeTypeInvalid, field.ErrorTypeTooShort:
		default:
			known = false
		}
		if !known {
			errType, detail = field.ErrorTypeInvalid, cause.Message
		}
		detail = strings.TrimPrefix(detail, ": ")

		path, ok := "", false
		if m := podField.FindStringSubmatch(cause.Field); m != nil {
			i, _ := strconv.Atoi(m[2])
			switch {
			case m[1] == "initContainers" && i < containers:
				path, ok = fmt.Sprintf("spec.containers[%d]%s", i, m[3]), true
			case m[1] == "volumes" && i < volumes:
				path, ok = fmt.Sprintf("spec.volumes[%d]%s", i, m[3]), true
			}
		}
		if !ok {
			path = "spec.containers"
			detail = fmt.Sprintf("%s (at %s of a pod with these sidecars)", detail, cause.Field)
		}
		errs = append(errs, &field.Error{Type: errType, Field: path, BadValue: field.OmitValueType{}, Detail: detail})
	}
	return errs
}
