#!/bin/sh
# Confirm that a node is schedulable again and healthy after maintenance.
node="$1"
kubectl uncordon "$node"
kubectl get node "$node" -o jsonpath='{.spec.unschedulable}'   # prints nothing when schedulable
kubectl describe node "$node" | grep -A5 Conditions
# Pods created from now on may land on the node; existing Pods stay where they are.
