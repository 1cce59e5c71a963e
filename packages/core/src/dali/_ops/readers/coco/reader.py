"""`fn.readers.coco`: images with their boxes, labels and masks from a COCO dataset (DALI 2.4).

A COCO dataset is a folder of images (``file_root``) and a JSON file of annotations
(``annotations_file``; `_coco_annotations` says how DALI reads it). The reader lists its samples
once, at build, and then produces, per sample and in DALI's order::

    images, bboxes, labels, [polygons, vertices | pixelwise_masks], [image_ids]

* ``images``: the encoded file, 1-D uint8 (decode it with `fn.decoders.image`);
* ``bboxes``: float32 ``[N, 4]``, ``[x, y, w, h]`` in pixels, or ``[l, t, r, b]`` with
  ``ltrb``, relative to the image size with ``ratio``;
* ``labels``: int32 ``[N]`` (DALI 2.4's shape; before 0.28 it was ``[N, 1]``): 1..C in the order
  of the file's ``categories`` list, or the category ids with ``avoid_class_remapping``;
* with ``polygon_masks``: ``polygons`` int32 ``[P, 3]`` rows ``(object, first vertex, end
  vertex)`` and ``vertices`` float32 ``[V, 2]`` (relative with ``ratio``); the deprecated
  ``masks=True`` gives the same with coordinate indices (vertex indices times 2);
* with ``pixelwise_masks``: int32 ``[H, W, 1]`` (layout ``HWC``), each pixel the label of the
  object covering it, rasterised exactly as DALI does (`_coco_masks`);
* with ``image_ids``: int32 ``[1]``, the image's id in the file.

Samples are the images in increasing id order (or the files named by ``images``). The images
carry their ``file_name`` (as the JSON writes it) as ``source_info``; the other outputs carry
none, as in DALI 2.4 (errors downstream still name the file: the sample's identity keeps it).

The parsed annotations of a local ``annotations_file`` are cached (`_coco_cache`): the next
build of the same file with the same arguments, in any process, reads them as memory-mapped
numpy files instead of parsing the JSON (``~/.cache/dali/coco/``, or ``$DALI_CACHE_DIR/coco/``;
``DALI_COCO_CACHE=0`` turns it off). The file's size and modification time are part of the
key, so an edited file is parsed again. ``save_preprocessed_annotations`` writes the parsed
annotations in DALI's own binary format instead (`_coco_preprocessed`; the cache is then
left alone), which ``preprocessed_annotations`` reads back, from either library.
DALI's deprecated names are accepted with a `DeprecationWarning`: ``save_img_ids``
(``image_ids``), ``dump_meta_files`` / ``dump_meta_files_path`` (the two ``save_...`` ones),
``meta_files_path`` (``preprocessed_annotations``), and ``masks`` (legacy polygon indices).

Differences from DALI, each where DALI reads uninitialised memory, crashes or hangs: a malformed
entry (no ``id``/``image_id``/``category_id``/``bbox``, a ``bbox`` of other than 4 numbers, an
odd polygon, an RLE of another size than its image, a negative label with pixelwise masks,
``image_ids`` from a preprocessed folder saved without them) is an error naming the file and
the entry; an element of ``images``/``categories``/``annotations`` that is not an object is
skipped (DALI 2.4 loops for ever); a missing local image file is an error at build (DALI: at
the first batch that reads it); image ids that repeat are ordered stably; an image file name
with whitespace cannot be saved as preprocessed annotations (DALI writes a file it then
misreads).

Example:
    >>> import tempfile
    >>> import dali, dali.fn as fn
    >>> from dali._testing.coco import make_coco
    >>> data = make_coco(tempfile.mkdtemp(), n_images=6, photo_size=(40, 60))
    >>> pipe = dali.Pipeline(batch_size=2, num_threads=1, device_id=None)
    >>> with pipe:
    ...     jpegs, boxes, labels = fn.readers.coco(
    ...         file_root=data.file_root, annotations_file=data.annotations_file,
    ...         ltrb=True, ratio=True, skip_empty=True, name="Reader")
    ...     pipe.set_outputs(jpegs, boxes, labels)
    >>> jpegs_out, boxes_out, labels_out = pipe.run()
    >>> boxes_out.at(0).shape[1], labels_out.at(0).dtype, pipe.epoch_size("Reader")
    (4, dtype('int32'), 4)
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from dali._dtypes import DALIDataType
from dali._exec.workspace import SampleFailure
from dali._graph.schema import Arg, register
from dali._ops.readers.coco import cache as _coco_cache
from dali._ops.readers.coco import preprocessed as _coco_preprocessed
from dali._ops.readers.coco.annotations import (
    CocoAnnotations,
    CocoError,
    CocoOptions,
    parse_coco,
)
from dali._ops.readers.coco.masks import pixelwise_mask
from dali._ops.readers.loader.indexed import (
    NON_SEMANTIC,
    READER_ARGS,
    SHUFFLE_AFTER_EPOCH_ARGS,
    IndexedReader,
)
from dali._ops.readers.loader.listing import unreadable_files
from dali._ops.readers.storage import access as _storage
from dali._tensors import TensorListCPU

if TYPE_CHECKING:
    from dali.author import Workspace

__all__ = ["Coco", "coco_outputs"]

#: DALI's deprecated argument names and what they became (renamed when the reader is built).
DEPRECATED = {
    "save_img_ids": "image_ids",
    "dump_meta_files": "save_preprocessed_annotations",
    "dump_meta_files_path": "save_preprocessed_annotations_dir",
    "meta_files_path": "preprocessed_annotations",
}

#: Arguments DALI refuses next to ``preprocessed_annotations`` (they decide the parsing).
_NOT_WITH_PREPROCESSED = (
    "annotations_file",
    "skip_empty",
    "ratio",
    "ltrb",
    "images",
    "size_threshold",
)


def _given(args: Mapping[str, Any], name: str) -> Any:
    """The value of ``name`` or of its deprecated alias (None when neither is given)."""
    for key, new in DEPRECATED.items():
        if new == name and key in args:
            return args[key]
    return args.get(name)


def _polygon_outputs(args: Mapping[str, Any]) -> bool:
    return bool(args.get("polygon_masks")) or bool(args.get("masks"))


def coco_outputs(args: Mapping[str, Any]) -> int:
    """The number of outputs for these arguments: 3, +2 polygons, +1 masks, +1 image ids."""
    return (
        3
        + 2 * _polygon_outputs(args)
        + bool(args.get("pixelwise_masks"))
        + bool(_given(args, "image_ids"))
    )


@register(
    "readers.coco",
    devices=("cpu",),
    inputs=0,
    outputs=coco_outputs,
    source=True,
    random=True,
    class_name="COCO",
    non_semantic=(
        *NON_SEMANTIC,
        "save_preprocessed_annotations",
        "save_preprocessed_annotations_dir",
        "dump_meta_files",
        "dump_meta_files_path",
    ),
    args=[
        Arg("file_root", "str", doc="Folder the images' file names are relative to."),
        Arg("annotations_file", "str", doc="The COCO JSON annotations file."),
        Arg("preprocessed_annotations", "str", doc="Folder of saved preprocessed annotations."),
        Arg("ltrb", "bool", default=False, doc="Boxes as [l, t, r, b] instead of [x, y, w, h]."),
        Arg(
            "ratio", "bool", default=False, doc="Box and vertex coordinates relative to the image."
        ),
        Arg("skip_empty", "bool", default=False, doc="Skip images with no object."),
        Arg(
            "size_threshold",
            "float",
            default=0.1,
            doc="Drop objects whose box width or height is below this (pixels).",
        ),
        Arg(
            "avoid_class_remapping",
            "bool",
            default=False,
            doc="Labels are the category ids, not 1..N in the categories' order.",
        ),
        Arg("include_iscrowd", "bool", default=True, doc="Keep objects marked iscrowd=1."),
        Arg("image_ids", "bool", default=False, doc="Add an output with the image ids."),
        Arg("images", "str_vec", doc="Only these image files (as in the JSON), in this order."),
        Arg("polygon_masks", "bool", default=False, doc="Add polygons and vertices outputs."),
        Arg("pixelwise_masks", "bool", default=False, doc="Add a pixelwise label mask output."),
        Arg(
            "save_preprocessed_annotations",
            "bool",
            default=False,
            doc="Save the parsed annotations (DALI's binary format).",
        ),
        Arg("save_preprocessed_annotations_dir", "str", doc="Where to save them."),
        Arg("masks", "bool", default=False, doc="Deprecated: polygons with coordinate indices."),
        Arg("save_img_ids", "bool", doc="Deprecated alias of `image_ids`."),
        Arg("dump_meta_files", "bool", doc="Deprecated alias of `save_preprocessed_annotations`."),
        Arg(
            "dump_meta_files_path",
            "str",
            doc="Deprecated alias of `save_preprocessed_annotations_dir`.",
        ),
        Arg("meta_files_path", "str", doc="Deprecated alias of `preprocessed_annotations`."),
        *READER_ARGS,
        *SHUFFLE_AFTER_EPOCH_ARGS,
    ],
)
class Coco(IndexedReader):
    """Reads images and their annotations from a COCO dataset.

    Outputs ``images, bboxes, labels``, then ``polygons, vertices`` (``polygon_masks``) or
    ``pixelwise_masks``, then ``image_ids`` (``image_ids``); see the module docstring.
    """

    # -- arguments ----------------------------------------------------------------------------
    def _value(self, name: str) -> Any:
        """``name``'s value, given under its own or its deprecated name, or its default."""
        for old, new in DEPRECATED.items():
            if new == name and self.has_arg(old):
                return self.arg(old)
        return self.arg(name)

    def _given(self, name: str) -> bool:
        return self.has_arg(name) or any(
            self.has_arg(old) for old, new in DEPRECATED.items() if new == name
        )

    def check_arguments(self) -> None:
        for old, new in DEPRECATED.items():
            if self.has_arg(old):
                if self.has_arg(new):
                    raise self.arg_error(
                        old, f"is a deprecated alias of `{new}`: give only `{new}`"
                    )
                warnings.warn(
                    f"{self.display_name}: argument `{old}` is deprecated, use `{new}`",
                    DeprecationWarning,
                    stacklevel=2,
                )
        if self.has_arg("masks"):
            warnings.warn(
                f"{self.display_name}: argument `masks` is deprecated, use `polygon_masks` "
                "(whose polygons give vertex indices, not coordinate indices)",
                DeprecationWarning,
                stacklevel=2,
            )
        if self.arg("skip_cached_images"):
            raise self.arg_error("skip_cached_images", "is not supported by the COCO reader")
        if not self.has_arg("file_root"):
            raise self.arg_error("file_root", "is required (the folder of the images)")
        preprocessed = self._given("preprocessed_annotations")
        if not preprocessed and not self.has_arg("annotations_file"):
            raise self.arg_error(
                "annotations_file",
                "either `annotations_file` or `preprocessed_annotations` must be given",
            )
        if preprocessed:
            for name in _NOT_WITH_PREPROCESSED:
                if self.has_arg(name):
                    raise self.arg_error(
                        name, "is not supported when reading `preprocessed_annotations`"
                    )
        self._polygons = bool(self.arg("polygon_masks")) or bool(self.arg("masks"))
        self._legacy_polygons = bool(self.arg("masks"))
        self._masks = bool(self.arg("pixelwise_masks"))
        self._ids = bool(self._value("image_ids"))
        if self._polygons and self._masks:
            raise self.arg_error(
                "pixelwise_masks", "`pixelwise_masks` and `polygon_masks` are mutually exclusive"
            )
        # DALI asks whether each was *given* (even `save_preprocessed_annotations=False`)
        if self._given("save_preprocessed_annotations") != self._given(
            "save_preprocessed_annotations_dir"
        ):
            raise self.arg_error(
                "save_preprocessed_annotations",
                "`save_preprocessed_annotations` and `save_preprocessed_annotations_dir` must "
                "be given together",
            )

    # -- listing ------------------------------------------------------------------------------
    def list_samples(self) -> int:
        if self._given("preprocessed_annotations"):
            ann = self._load_preprocessed()
        else:
            ann = self._parse()
        if len(ann) == 0:
            raise self.arg_error(self._source_arg(), f"no images found in {self._source_desc()}")
        self._ann = ann
        root = self.arg("file_root")
        if not _storage.isdir(root):
            what = "is not a directory" if _storage.exists(root) else "does not exist"
            raise self.arg_error("file_root", f"'{root}' {what}")
        self._full = [_storage.join(root, f) for f in ann.filenames]
        self._remote = _storage.is_url(root)
        if not _storage.is_url(root):
            # one stat per image (cheap locally; remote sets fail at their first read instead)
            missing, not_regular = unreadable_files(self._full)
            bad = sorted({self._full[i] for i in [*missing, *(i for i, _ in not_regular)]})
            if bad:
                more = f" (and {len(bad) - 3} more)" if len(bad) > 3 else ""
                shown = ", ".join(f"'{p}'" for p in bad[:3])
                raise self.arg_error(
                    "file_root",
                    f"{len(bad)} image file(s) of {self._source_desc()} are missing or not "
                    f"regular files: {shown}{more}",
                )
        self._use_mmap = not self.arg("dont_use_mmap")
        self._ratio = bool(self.arg("ratio"))
        return len(ann)

    def _source_arg(self) -> str:
        """The argument that named the annotations (for errors)."""
        for name in ("annotations_file", "preprocessed_annotations", "meta_files_path"):
            if self.has_arg(name):
                return name
        return "annotations_file"

    def _source_desc(self) -> str:
        if self._given("preprocessed_annotations"):
            return f"preprocessed_annotations '{self._value('preprocessed_annotations')}'"
        return f"annotations_file '{self.arg('annotations_file')}'"

    def _parse(self) -> CocoAnnotations:
        path = self.arg("annotations_file")
        # an empty list means every image, as in DALI
        images = tuple(self.arg("images") or ()) if self.has_arg("images") else ()
        options = CocoOptions(
            ltrb=bool(self.arg("ltrb")),
            ratio=bool(self.arg("ratio")),
            skip_empty=bool(self.arg("skip_empty")),
            size_threshold=float(self.arg("size_threshold")),
            avoid_class_remapping=bool(self.arg("avoid_class_remapping")),
            include_iscrowd=bool(self.arg("include_iscrowd")),
            images=images or None,
            polygons=self._polygons or self._masks,
            rles=self._masks,
        )
        # the parsed tables are cached for local files (`_coco_cache`), unless they are saved
        # in DALI's form on request (`save_preprocessed_annotations`) or the cache is off
        saving = bool(self._value("save_preprocessed_annotations"))
        local = path.removeprefix("file://")
        cached = not saving and not _storage.is_url(path) and _coco_cache.enabled()
        ann = _coco_cache.load(local, options) if cached else None
        if ann is None:
            ann = self._parse_file(path, options)
            if cached:
                _coco_cache.save(local, options, ann)
        self._check_mask_labels(ann)
        if saving:
            folder = self._value("save_preprocessed_annotations_dir")
            arg = next(
                a
                for a in ("save_preprocessed_annotations_dir", "dump_meta_files_path")
                if self.has_arg(a)
            )
            try:
                _coco_preprocessed.save(
                    ann, folder, polygons=self._polygons, masks=self._masks, image_ids=self._ids
                )
            except OSError as e:
                raise self.arg_error(
                    arg, f"cannot save the preprocessed annotations into '{folder}': {e}"
                ) from e
            except CocoError as e:
                raise self.arg_error(arg, f"'{folder}': {e}") from e
        return ann

    def _parse_file(self, path: str, options: CocoOptions) -> CocoAnnotations:
        try:
            # bytes, not text: the parser reads UTF-8 itself (decoding a COCO-sized file
            # first cost a tenth of the build), and invalid text is a CocoError naming the file
            text = _storage.read_bytes(path, use_mmap=False).tobytes()
        except OSError as e:
            raise self.arg_error(
                "annotations_file", f"cannot read '{path}': {e.strerror or e}"
            ) from e
        try:
            return parse_coco(text, options)
        except CocoError as e:
            raise self.arg_error("annotations_file", f"'{path}': {e}") from e

    def _load_preprocessed(self) -> CocoAnnotations:
        folder = self._value("preprocessed_annotations")
        arg = self._source_arg()
        try:
            ann = _coco_preprocessed.load(
                folder, polygons=self._polygons, masks=self._masks, image_ids=self._ids
            )
        except OSError as e:
            raise self.arg_error(arg, f"cannot read '{folder}': {e}") from e
        except CocoError as e:
            raise self.arg_error(arg, f"'{folder}': {e}") from e
        self._check_mask_labels(ann)
        return ann

    def _check_mask_labels(self, ann: CocoAnnotations) -> None:
        if self._masks and len(ann.labels) and int(ann.labels.min()) < 0:
            raise self.arg_error(
                "pixelwise_masks",
                f"label {int(ann.labels.min())} is negative: pixelwise masks hold labels >= 0 "
                "(category ids with `avoid_class_remapping`)",
            )

    def source_info(self, index: int) -> str:
        return self._ann.filenames[index]

    # -- running ------------------------------------------------------------------------------
    def run_cpu(self, ws: Workspace) -> tuple[TensorListCPU, ...]:
        ids = self.next_samples(ws)
        samples = ids.tolist()
        ann = self._ann
        extents = [_storage.Extent(self._full[k]) for k in samples]
        data = _storage.read_extents(extents, use_mmap=self._use_mmap, parallel_map=ws.map)
        for i, d in enumerate(data):
            if isinstance(d, OSError):
                err = self.error(f"cannot read image '{extents[i].path}': {d.strerror or d}")
                err.__cause__ = d
                raise SampleFailure(i, err) from d
        # DALI gives the images their file's source_info, and the annotations none (an explicit
        # empty one: the executor would give a batch without any the sample's)
        none = [""] * len(samples)
        outs = [
            TensorListCPU.wrap(data, "", self.batch_infos(ws)),
            TensorListCPU.wrap([ann.sample_boxes(k) for k in samples], "", none),
            TensorListCPU.wrap([ann.sample_labels(k) for k in samples], "", none),
        ]
        if self._polygons:
            polygons = [ann.sample_polygons(k) for k in samples]
            if self._legacy_polygons:  # `masks=True`: DALI's old coordinate indices
                for p in polygons:
                    p[:, 1:] *= 2
            outs.append(TensorListCPU.wrap(polygons, "", none))
            outs.append(TensorListCPU.wrap([ann.sample_vertices(k) for k in samples], "", none))
        if self._masks:
            masks = ws.map(lambda i: self._mask(samples[i]))
            outs.append(TensorListCPU.wrap(masks, "HWC", none))
        if self._ids:
            image_ids = ann.original_ids[ids].reshape(-1, 1).astype(np.int32)
            outs.append(TensorListCPU.wrap(list(image_ids), "", none))
        if self._remote:  # (the OS reads ahead for local files)
            self.hint_ahead(lambda ids: [_storage.Extent(self._full[k]) for k in ids.tolist()])
        return tuple(outs)

    def _mask(self, k: int) -> np.ndarray:
        ann = self._ann
        rles, objects = ann.sample_rles(k)
        h, w = int(ann.heights[k]), int(ann.widths[k])
        vertices = ann.sample_vertices(k)
        if self._ratio:  # DALI scales relative vertices back, in float32
            vertices = vertices * np.asarray([w, h], dtype=np.float32)
        return pixelwise_mask(
            h,
            w,
            ann.labels[int(ann.offsets[k]) :][: int(ann.counts[k])],
            ann.sample_polygons(k),
            vertices,
            rles,
            objects,
        )

    @staticmethod
    def static_meta(node: Any) -> list[dict[str, Any]]:
        args = node.scalar_args
        metas: list[dict[str, Any]] = [
            {"dtype": DALIDataType.UINT8, "static_shape": (None,), "layout": ""},
            {"dtype": DALIDataType.FLOAT, "static_shape": (None, 4), "layout": ""},
            {"dtype": DALIDataType.INT32, "static_shape": (None,), "layout": ""},
        ]
        if _polygon_outputs(args):
            metas.append({"dtype": DALIDataType.INT32, "static_shape": (None, 3), "layout": ""})
            metas.append({"dtype": DALIDataType.FLOAT, "static_shape": (None, 2), "layout": ""})
        if args.get("pixelwise_masks"):
            metas.append(
                {"dtype": DALIDataType.INT32, "static_shape": (None, None, 1), "layout": "HWC"}
            )
        if _given(args, "image_ids"):
            metas.append({"dtype": DALIDataType.INT32, "static_shape": (1,), "layout": ""})
        return metas
