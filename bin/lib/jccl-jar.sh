# Sourced by bench/jccl-bench and bin/jccl-run: the runnable jar they share (bench/target/jccl-bench.jar, which holds
# every jccl module) and the java to run it with. jccl_jar builds the jar first when it is missing or older than any
# source or pom of the project (build output goes to stderr, so stdout carries only the program's). Sets $jar and
# $java.

jccl_root_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
jar="$jccl_root_dir/bench/target/jccl-bench.jar"

jccl_jar_stale()
{
    [[ ! -f "$jar" ]] && return 0
    local newer
    newer="$(find "$jccl_root_dir" \( -name target -o -name .git -o -name node_modules \) -prune -o \
        -type f \( -name pom.xml -o -path '*/src/*' -o -path '*/cuda-src/*' \) -newer "$jar" -print -quit)"
    [[ -n "$newer" ]]
}

jccl_jar_build()
{
    echo "$1: building $jar (mvn -B -q -DskipTests install, without javadoc and sources)" >&2
    (cd "$jccl_root_dir" && mvn -B -q -DskipTests -Dmaven.javadoc.skip -Dmaven.source.skip install) >&2
    if [[ ! -f "$jar" ]]; then
        echo "$1: the build did not produce $jar" >&2
        exit 1
    fi
}

# jccl_jar NAME: makes sure $jar is fresh; NAME goes before the build's messages
jccl_jar()
{
    if jccl_jar_stale; then
        if command -v flock > /dev/null; then
            # the ranks of an mpirun or srun job start the script at once: one builds, the others wait and then see
            # a fresh jar
            mkdir -p "$(dirname "$jar")"
            exec 9> "$(dirname "$jar")/.jccl-bench-build.lock"
            flock 9
            if jccl_jar_stale; then
                jccl_jar_build "$1"
            fi
            flock -u 9
            exec 9>&-
        else
            jccl_jar_build "$1"
        fi
    fi
}

if [[ -n "${JAVA_HOME:-}" ]]; then
    java="$JAVA_HOME/bin/java"
else
    java="java"
fi
