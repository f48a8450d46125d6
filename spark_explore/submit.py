"""Entry file for ``spark-submit``: runs the modelcheck CLI inside the submitted driver.

    spark-submit --master spark://host:7077 $(python -c 'import modelcheck.spark_explore.submit as m; print(m.__file__)') \\
        check kip320 --engine spark --master spark://host:7077
"""

from modelcheck.cli import run

if __name__ == "__main__":
    run()
