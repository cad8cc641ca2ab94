"""A small stand-in for dxpy in Panx jobs where the real dxpy is not installed.

It covers what an entry-point script needs to run: ``@dxpy.entry_point``, ``dxpy.run()`` (which
calls the job's function with its input and writes job_output.json, or job_error.json on
failure), ``dxpy.dxlink``, ``dxpy.new_dxjob`` with ``get_output_ref``, ``AppError`` and
``AppInternalError``. With the real dxpy on the worker (``pip install dxpy``) this file is unused.
"""
import json
import os
import sys
import traceback
import urllib.request

JOB_ID = os.environ.get("DX_JOB_ID")
WORKSPACE_ID = os.environ.get("DX_WORKSPACE_ID")
PROJECT_CONTEXT_ID = os.environ.get("DX_PROJECT_CONTEXT_ID")

_entry_points = {}


class DXError(Exception):
    pass


class AppError(DXError):
    pass


class AppInternalError(DXError):
    pass


def entry_point(name):
    def register(function):
        _entry_points[name] = function
        return function

    return register


def dxlink(object_id, project_id=None):
    if isinstance(object_id, dict) and "$dnanexus_link" in object_id:
        return object_id
    if project_id is None:
        return {"$dnanexus_link": object_id}
    return {"$dnanexus_link": {"project": project_id, "id": object_id}}


def is_dxlink(value):
    return isinstance(value, dict) and "$dnanexus_link" in value


def api(subject, method, body=None):
    """POST /<subject>/<method> with the job's token."""
    context = json.loads(os.environ.get("DX_SECURITY_CONTEXT", "{}"))
    url = "{}://{}:{}/{}/{}".format(
        os.environ.get("DX_APISERVER_PROTOCOL", "http"),
        os.environ.get("DX_APISERVER_HOST", "localhost"),
        os.environ.get("DX_APISERVER_PORT", "80"),
        subject,
        method,
    )
    request = urllib.request.Request(
        url,
        data=json.dumps(body or {}).encode("utf-8"),
        headers={"Content-Type": "application/json", "Authorization": "Bearer " + context.get("auth_token", "")},
    )
    with urllib.request.urlopen(request) as response:
        return json.loads(response.read().decode("utf-8") or "{}")


class DXJob(object):
    def __init__(self, job_id):
        self._dxid = job_id

    def get_id(self):
        return self._dxid

    def get_output_ref(self, field, index=None):
        link = {"job": self._dxid, "field": field}
        if index is not None:
            link["index"] = index
        return {"$dnanexus_link": link}


def new_dxjob(fn_input, fn_name, name=None, depends_on=None, instance_type=None, **kwargs):
    body = {"function": fn_name, "input": fn_input}
    if name:
        body["name"] = name
    if depends_on:
        body["dependsOn"] = [d.get_id() if isinstance(d, DXJob) else d for d in depends_on]
    if instance_type:
        body["systemRequirements"] = {fn_name: {"instanceType": instance_type}}
    return DXJob(api("job", "new", body)["id"])


def _write(name, value):
    with open(os.path.join(os.environ.get("HOME", "."), name), "w") as handle:
        json.dump(value, handle)


def run(function_name=None, function_input=None):
    home = os.environ.get("HOME", ".")
    with open(os.path.join(home, "dnanexus-job.json")) as handle:
        job = json.load(handle)
    name = function_name or job.get("function", "main")
    arguments = function_input if function_input is not None else job.get("input", {})
    if name not in _entry_points:
        _write("job_error.json", {"error": {"type": "AppInternalError", "message": "No entry point named " + name}})
        sys.exit(1)
    try:
        result = _entry_points[name](**arguments)
    except AppError as error:
        _write("job_error.json", {"error": {"type": "AppError", "message": str(error)}})
        sys.exit(1)
    except Exception as error:  # noqa: BLE001 - every failure of the code is reported
        traceback.print_exc()
        _write("job_error.json", {"error": {"type": "AppInternalError", "message": "{}: {}".format(type(error).__name__, error)}})
        sys.exit(1)
    _write("job_output.json", result or {})
