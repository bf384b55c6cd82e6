#!/usr/bin/env python3
"""A small Remote Workers API bot for BuildGrid (0.4.4), for afkit's remote-execution proof.

It stands in for buildbox-worker with buildbox-run-hosttools, which neither Debian nor PyPI packages: it opens a
bot session with its platform properties, takes each lease the scheduler gives it, fetches the action's
command and input tree from the CAS into a fresh folder, runs the command there with only the action's
environment, uploads the outputs, standard output and standard error, and reports the ActionResult as the
lease's result. It is not part of afkit's product; a real farm runs buildbox or Buildbarn workers. Its limits:
one lease at a time, no sandbox (the command runs as the worker's user), symbolic-link outputs not uploaded,
and BuildGrid's generated protos (`buildgrid._protos`, not a public API) pinned with BuildGrid 0.4.4.

Usage: remote-worker.py --server grpc://127.0.0.1:PORT --instance NAME --workdir DIR [--property KEY=VALUE ...]
"""
import argparse
import io
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import grpc
from buildgrid._protos.build.bazel.remote.execution.v2 import remote_execution_pb2 as rex
from buildgrid._protos.google.devtools.remoteworkers.v1test2 import bots_pb2, bots_pb2_grpc, worker_pb2
from buildgrid.server.client.cas import download, upload

running = True
# CAS calls retried (with back-off) when the server is busy.
RETRIES = 5


def stop(*_):
    global running
    running = False


def fetch_action(channel, instance, lease):
    """The lease's action: packed whole, or by its digest."""
    action = rex.Action()
    if lease.payload.Is(rex.Action.DESCRIPTOR):
        lease.payload.Unpack(action)
        return action
    digest = rex.Digest()
    lease.payload.Unpack(digest)
    with download(channel, instance=instance, retries=RETRIES) as downloader:
        return downloader.get_message(digest, rex.Action())


def execute(channel, instance, action, workdir):
    """Runs one action in a fresh folder and returns its ActionResult."""
    root = tempfile.mkdtemp(prefix="action-", dir=workdir)
    try:
        with download(channel, instance=instance, retries=RETRIES) as downloader:
            command = downloader.get_message(action.command_digest, rex.Command())
            downloader.download_directory(action.input_root_digest, root)
        cwd = os.path.join(root, command.working_directory)
        outputs = list(command.output_paths) or list(command.output_files) + list(command.output_directories)
        for path in outputs:
            os.makedirs(os.path.dirname(os.path.join(cwd, path)), exist_ok=True)
        environment = {variable.name: variable.value for variable in command.environment_variables}
        timeout = action.timeout.seconds or 600
        try:
            process = subprocess.run(
                list(command.arguments), cwd=cwd, env=environment, capture_output=True, timeout=timeout)
            exit_code, stdout, stderr = process.returncode, process.stdout, process.stderr
        except subprocess.TimeoutExpired as expired:
            exit_code, stdout, stderr = 124, expired.stdout or b"", (expired.stderr or b"") + b"\ntimed out\n"
        except OSError as error:
            exit_code, stdout, stderr = 127, b"", f"remote-worker: cannot run the command: {error}\n".encode()
        result = rex.ActionResult(exit_code=exit_code)
        with upload(channel, instance=instance, retries=RETRIES) as uploader:
            result.stdout_digest.CopyFrom(uploader.put_blob(io.BytesIO(stdout)))
            result.stderr_digest.CopyFrom(uploader.put_blob(io.BytesIO(stderr)))
            for path in outputs:
                full = os.path.join(cwd, path)
                if os.path.isfile(full) and not os.path.islink(full):
                    digest = uploader.upload_file(full, queue=False)
                    result.output_files.add(path=path, digest=digest, is_executable=os.access(full, os.X_OK))
                elif os.path.isdir(full):
                    tree = uploader.upload_tree(full, queue=False)
                    result.output_directories.add(path=path, tree_digest=tree)
            uploader.flush()
        return result
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--server", required=True)
    parser.add_argument("--instance", default="")
    parser.add_argument("--workdir", required=True)
    parser.add_argument("--property", action="append", default=[], help="a platform property KEY=VALUE")
    parser.add_argument("--name", default=f"afkit-worker-{os.getpid()}")
    arguments = parser.parse_args()
    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    channel = grpc.insecure_channel(arguments.server.removeprefix("grpc://"))
    bots = bots_pb2_grpc.BotsStub(channel)
    device = worker_pb2.Device(handle=arguments.name)
    for pair in arguments.property:
        key, _, value = pair.partition("=")
        device.properties.add(key=key, value=value)
    session = bots_pb2.BotSession(
        bot_id=arguments.name, status=bots_pb2.BotStatus.OK, worker=worker_pb2.Worker(devices=[device]))
    session = bots.CreateBotSession(bots_pb2.CreateBotSessionRequest(parent=arguments.instance, bot_session=session))
    print(f"remote-worker: session {session.name}", flush=True)
    while running:
        # Leases given (BuildGrid hands them out active) are run now, one at a time; those reported completed
        # are dropped by the server.
        worked = False
        for lease in session.leases:
            if lease.state not in (bots_pb2.LeaseState.PENDING, bots_pb2.LeaseState.ACTIVE):
                continue
            lease.state = bots_pb2.LeaseState.ACTIVE
            try:
                action = fetch_action(channel, arguments.instance, lease)
                result = execute(channel, arguments.instance, action, arguments.workdir)
                lease.result.Pack(result)
                lease.status.code = 0
                print(f"remote-worker {arguments.name}: lease {lease.id} done, exit {result.exit_code}", flush=True)
            except Exception as error:  # a lease that cannot be run fails, and the worker goes on
                lease.status.code = 13  # INTERNAL
                lease.status.message = f"remote-worker: {error}"
                print(f"remote-worker {arguments.name}: lease {lease.id} failed: {error}", flush=True)
            lease.state = bots_pb2.LeaseState.COMPLETED
            worked = True
        try:
            session = bots.UpdateBotSession(
                bots_pb2.UpdateBotSessionRequest(name=session.name, bot_session=session), timeout=30)
        except grpc.RpcError as error:
            busy = (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.RESOURCE_EXHAUSTED)
            if error.code() in busy and running:
                time.sleep(0.2)
                continue
            if not running:
                break
            raise
        if not worked and not session.leases:
            time.sleep(0.01)
    channel.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
