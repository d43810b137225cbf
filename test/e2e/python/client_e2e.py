"""Drives the API server with the official Python client (Debian's python3-kubernetes): the typed
models refuse responses that lack what upstream always returns (a required field left out), so
each step reads back through them. Prints one line per step; exits non-zero on the first failure."""

import sys

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def step(name):
    print(f"ok {name}", flush=True)


def main(kubeconfig, ns):
    config.load_kube_config(config_file=kubeconfig)
    core = client.CoreV1Api()
    apps = client.AppsV1Api()
    policy = client.PolicyV1Api()

    core.create_namespace(client.V1Namespace(metadata=client.V1ObjectMeta(name=ns)))
    assert core.read_namespace(ns).status.phase == "Active"
    step("namespace")

    cm = core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cfg", annotations={}), data={"a": "1"}))
    assert cm.metadata.annotations is None, cm.metadata.annotations  # empty maps are not kept
    assert cm.metadata.managed_fields[0].operation == "Update"
    patched = core.patch_namespaced_config_map("cfg", ns, {"data": {"b": "2"}})
    assert patched.data == {"a": "1", "b": "2"}
    step("configmap create/patch, managedFields")

    svc = core.create_namespaced_service(ns, client.V1Service(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1ServiceSpec(selector={"app": "web"}, ports=[client.V1ServicePort(port=80, target_port=8080)], type="NodePort")))
    assert svc.spec.cluster_ip.startswith("10.0.0.") and svc.spec.cluster_i_ps == [svc.spec.cluster_ip], svc.spec
    assert svc.spec.ip_families == ["IPv4"] and svc.spec.ip_family_policy == "SingleStack"
    assert 30000 <= svc.spec.ports[0].node_port <= 32767
    assert svc.status.load_balancer is not None
    step("service with cluster IP and node port")

    try:
        core.create_namespaced_service(ns, client.V1Service(
            metadata=client.V1ObjectMeta(name="clash"),
            spec=client.V1ServiceSpec(cluster_ip=svc.spec.cluster_ip, ports=[client.V1ServicePort(port=80)])))
        raise AssertionError("a cluster IP in use was given twice")
    except ApiException as e:
        assert e.status == 422, e.status
        assert "provided IP is already allocated" in e.body, e.body
    step("cluster IP in use is 422")

    labels = {"app": "web"}
    dep = apps.create_namespaced_deployment(ns, client.V1Deployment(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1DeploymentSpec(
            replicas=2,
            selector=client.V1LabelSelector(match_labels=labels),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels=labels),
                spec=client.V1PodSpec(containers=[client.V1Container(name="web", image="nginx")])))))
    assert dep.spec.strategy.type == "RollingUpdate"
    assert dep.spec.template.spec.containers[0].resources is not None
    scale = apps.read_namespaced_deployment_scale("web", ns)
    assert scale.spec.replicas == 2
    step("deployment and its scale")

    pdb = policy.create_namespaced_pod_disruption_budget(ns, client.V1PodDisruptionBudget(
        metadata=client.V1ObjectMeta(name="web"),
        spec=client.V1PodDisruptionBudgetSpec(min_available=1, selector=client.V1LabelSelector(match_labels=labels))))
    # The typed model requires the status counts: upstream writes them as zeros.
    assert pdb.status.disruptions_allowed == 0 and pdb.status.expected_pods == 0
    step("pod disruption budget status")

    node = core.create_node(client.V1Node(
        metadata=client.V1ObjectMeta(name=f"{ns}-node"),
        status=client.V1NodeStatus(
            conditions=[client.V1NodeCondition(type="Ready", status="True")],
            node_info=client.V1NodeSystemInfo(architecture="amd64", boot_id="b", container_runtime_version="c", kernel_version="k",
                                              kube_proxy_version="", kubelet_version="v1.32.0", machine_id="m", operating_system="linux",
                                              os_image="debian", system_uuid="u"))))
    assert node.status.node_info.kubelet_version == "v1.32.0"
    step("node registers with its status")

    # The typed API names apiregistration.k8s.io: served as the branded group's upstream spelling.
    reg = client.ApiregistrationV1Api()
    group = f"{ns}.example.io"
    api_service = reg.create_api_service(client.V1APIService(
        metadata=client.V1ObjectMeta(name=f"v1beta1.{group}"),
        spec=client.V1APIServiceSpec(group=group, version="v1beta1", group_priority_minimum=100, version_priority=100, insecure_skip_tls_verify=True,
                                     service=client.ApiregistrationV1ServiceReference(namespace=ns, name="metrics"))))
    assert api_service.spec.service.port == 443, api_service.spec
    assert reg.read_api_service(f"v1beta1.{group}").metadata.uid == api_service.metadata.uid
    try:
        reg.create_api_service(client.V1APIService(
            metadata=client.V1ObjectMeta(name=f"v1.{group}"),
            spec=client.V1APIServiceSpec(group=group, version="v1", group_priority_minimum=100, version_priority=100, insecure_skip_tls_verify=True, ca_bundle="Y2E=",
                                         service=client.ApiregistrationV1ServiceReference(namespace=ns, name="metrics"))))
        raise AssertionError("an APIService with both caBundle and insecureSkipTLSVerify was created")
    except ApiException as e:
        assert e.status == 422, e.status
        assert "may not be true if caBundle is present" in e.body, e.body
    reg.delete_api_service(f"v1beta1.{group}")
    step("apiservice")

    w = watch.Watch()
    seen = []
    core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="w1")))
    for ev in w.stream(core.list_namespaced_config_map, ns, timeout_seconds=5):
        seen.append((ev["type"], ev["object"].metadata.name))
        if ("ADDED", "w1") in seen:
            w.stop()
    assert ("ADDED", "w1") in seen, seen
    step("watch")

    try:
        core.read_namespaced_config_map("missing", ns)
        raise AssertionError("missing object read")
    except ApiException as e:
        assert e.status == 404
    try:
        core.create_namespaced_config_map(ns, client.V1ConfigMap(metadata=client.V1ObjectMeta(name="cfg")))
        raise AssertionError("a duplicate ConfigMap was created")
    except ApiException as e:
        # kube-apiserver's bytes: its field order, no empty fields, its serializer's newline.
        want = ('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"configmaps \\"cfg\\" already exists",'
                '"reason":"AlreadyExists","details":{"name":"cfg","kind":"configmaps"},"code":409}\n')
        assert e.status == 409 and e.body == want, repr(e.body)
    core.delete_namespaced_service("web", ns)
    core.delete_node(f"{ns}-node")
    step("errors and deletes")


if __name__ == "__main__":
    try:
        main(sys.argv[1], sys.argv[2])
    except Exception as exc:  # noqa: BLE001 - the test prints what failed
        import traceback
        traceback.print_exc()
        sys.exit(1)
