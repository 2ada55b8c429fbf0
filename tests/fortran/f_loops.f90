! tests/fortran/f_loops.f90 - Fortran worksharing loops as gfortran (GOMP calls) or a kmpc
! compiler emits them: schedule(dynamic), (dynamic, 7), (guided), (runtime) under each
! omp_set_schedule kind, a reduction, collapse(2), a step of -3, nowait, and a nested region.
! Every iteration runs exactly once and every result equals the sequential one; exit status 1
! and one line naming the loop otherwise.
program f_loops
  use omp_lib
  implicit none
  integer, parameter :: n = 3001, m = 37
  integer :: hits(n), hits2(m, m)
  integer :: i, j, k
  integer(8) :: total
  real(8) :: s
  integer(kind=omp_sched_kind) :: kinds(4)

  hits = 0
  !$omp parallel do schedule(dynamic)
  do i = 1, n
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp end parallel do
  call once(hits, 'dynamic')

  !$omp parallel
  !$omp do schedule(dynamic, 7)
  do i = 1, n
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp end do
  !$omp do schedule(guided)
  do i = n, 1, -3
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp end do nowait
  !$omp do schedule(guided, 4)
  do i = n - 1, 1, -3
    !$omp atomic
    hits(i) = hits(i) + 1
  end do
  !$omp end do
  !$omp end parallel
  do i = 1, n
    k = 1
    if (mod(n - i, 3) == 0 .or. mod(n - 1 - i, 3) == 0) k = 2
    if (hits(i) /= k) call fail('dynamic,7 then guided step -3', i)
  end do
  hits = 0

  kinds = [omp_sched_static, omp_sched_dynamic, omp_sched_guided, omp_sched_auto]
  do k = 1, 4
    call omp_set_schedule(kinds(k), mod(k, 3))
    !$omp parallel do schedule(runtime)
    do i = 1, n
      !$omp atomic
      hits(i) = hits(i) + 1
    end do
    !$omp end parallel do
    call once(hits, 'runtime')
  end do

  total = 0
  s = 0
  !$omp parallel do schedule(dynamic, 3) reduction(+:total, s)
  do i = 1, n
    total = total + i
    s = s + 0.5d0 * i
  end do
  !$omp end parallel do
  if (total /= int(n, 8) * (n + 1) / 2) call fail('reduction (integer)', int(total))
  if (abs(s - 0.5d0 * n * (n + 1) / 2) > 1d-6) call fail('reduction (real)', 0)

  hits2 = 0
  !$omp parallel do collapse(2) schedule(dynamic)
  do j = 1, m
    do i = 1, m
      !$omp atomic
      hits2(i, j) = hits2(i, j) + 1
    end do
  end do
  !$omp end parallel do
  if (any(hits2 /= 1)) call fail('collapse(2)', count(hits2 /= 1))

  hits2 = 0
  call omp_set_max_active_levels(2)
  !$omp parallel do schedule(dynamic) num_threads(2)
  do j = 1, m
    !$omp parallel do schedule(guided) num_threads(2)
    do i = 1, m
      !$omp atomic
      hits2(i, j) = hits2(i, j) + 1
    end do
    !$omp end parallel do
  end do
  !$omp end parallel do
  if (any(hits2 /= 1)) call fail('nested', count(hits2 /= 1))

contains

  subroutine once(h, what)
    integer, intent(inout) :: h(:)
    character(*), intent(in) :: what
    integer :: q
    do q = 1, size(h)
      if (h(q) /= 1) call fail(what, q)
    end do
    h = 0
  end subroutine once

  subroutine fail(what, at)
    character(*), intent(in) :: what
    integer, intent(in) :: at
    write (0, '(a, a, a, i0)') 'f_loops: FAIL: ', what, ': at ', at
    stop 1
  end subroutine fail

end program f_loops
