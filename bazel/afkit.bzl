"""Bazel rules for afkit: sound assets converted one action per source, validated as tests.

Each conversion is its own action whose inputs are the source file, the tool and the options, so a
local or remote cache serves every sound it has seen, and a build farm can run them anywhere. afkit's
outputs are deterministic (the same bytes for the same input, options and afkit version, whatever the
path, machine, time zone or locale), which is what makes the cache hits safe.

The tool is any executable label: a prebuilt `afkit` (for example exported by a `new_local_repository`
that points at `.build/release`), or an `afkit` built in the workspace with rules_swift.
"""

def _output_name(src, extension):
    base = src.basename
    dot = base.rfind(".")
    stem = base[:dot] if dot > 0 else base
    return stem + "." + extension

def _afkit_convert_impl(ctx):
    outputs = []
    for src in ctx.files.srcs:
        # Outputs keep the source's folder (below its repository), so two sources never write one output.
        path = src.short_path
        if path.startswith("../"):
            path = path.split("/", 2)[2]
        folder = path[:-len(src.basename)]
        out = ctx.actions.declare_file(ctx.attr.name + "/" + folder + _output_name(src, ctx.attr.extension))
        arguments = ctx.actions.args()
        arguments.add("convert")
        if ctx.attr.preset:
            arguments.add("--preset", ctx.attr.preset)
        if ctx.attr.data_format:
            arguments.add("-d", ctx.attr.data_format)
        if ctx.attr.trim:
            arguments.add("--trim")
        arguments.add_all(ctx.attr.extra_arguments)
        arguments.add(src)
        arguments.add(out)
        ctx.actions.run(
            executable = ctx.executable.tool,
            arguments = [arguments],
            inputs = [src],
            outputs = [out],
            mnemonic = "AfkitConvert",
            progress_message = "afkit: %s -> %s" % (src.short_path, out.basename),
            # A pure file-to-file action: safe to cache and to run on any worker with afkit's C libraries.
        )
        outputs.append(out)
    return [DefaultInfo(files = depset(outputs))]

afkit_convert = rule(
    implementation = _afkit_convert_impl,
    doc = "Converts each source with `afkit convert`, one action per source.",
    attrs = {
        "srcs": attr.label_list(allow_files = True, mandatory = True),
        "preset": attr.string(default = "sfx"),
        "data_format": attr.string(doc = "afconvert's -d, instead of (or with) the preset."),
        "extension": attr.string(default = "caf"),
        "trim": attr.bool(default = False, doc = "Trim sounds longer than the preset allows."),
        "extra_arguments": attr.string_list(),
        "tool": attr.label(executable = True, cfg = "exec", allow_files = True, mandatory = True),
    },
)

def afkit_sounds(name, srcs, preset = "sfx", tool = None, **kwargs):
    """`afkit convert --preset PRESET` over `srcs`, one cached action per source; outputs under NAME/."""
    afkit_convert(name = name, srcs = srcs, preset = preset, tool = tool, **kwargs)

def _afkit_validate_test_impl(ctx):
    script = ctx.actions.declare_file(ctx.attr.name + ".sh")
    paths = " ".join(["'%s'" % f.short_path for f in ctx.files.srcs])
    profile = ctx.attr.profile
    profile_files = ctx.files.profile_file
    if profile_files:
        profile = profile_files[0].short_path
    ctx.actions.write(
        output = script,
        is_executable = True,
        # The validator's report is the test's output; its exit status is the verdict.
        content = "#!/bin/sh\nexec '%s' validate --profile '%s' %s\n" % (ctx.executable.tool.short_path, profile, paths),
    )
    runfiles = ctx.runfiles(files = ctx.files.srcs + profile_files + [ctx.executable.tool])
    return [DefaultInfo(executable = script, runfiles = runfiles)]

afkit_validate_test = rule(
    implementation = _afkit_validate_test_impl,
    test = True,
    doc = "A test that passes when every source passes `afkit validate --profile PROFILE`.",
    attrs = {
        "srcs": attr.label_list(allow_files = True, mandatory = True),
        "profile": attr.string(default = "system-sound"),
        "profile_file": attr.label(allow_single_file = [".json"], doc = "A profile file instead of a built-in name."),
        "tool": attr.label(executable = True, cfg = "target", allow_files = True, mandatory = True),
    },
)
